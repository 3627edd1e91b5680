/** Discover: search signals by words, segment, entity and kind; follow a segment. */
import type { Locator } from '@playwright/test';
import { AppShell } from './app-shell';

export class DiscoverPage extends AppShell {
  get query(): Locator {
    return this.page.getByTestId('discover-query');
  }
  get segment(): Locator {
    return this.page.getByTestId('discover-segment');
  }
  get entity(): Locator {
    return this.page.getByTestId('discover-entity');
  }
  get kind(): Locator {
    return this.page.getByLabel('Kind');
  }
  get searchButton(): Locator {
    return this.page.getByTestId('discover-search');
  }
  /** `data-shown-for` names the search the list shows. */
  get results(): Locator {
    return this.page.getByTestId('discover-results');
  }
  get items(): Locator {
    return this.page.getByTestId('discover-item');
  }
  get followSegment(): Locator {
    return this.page.getByTestId('follow-segment');
  }
  get followMessage(): Locator {
    return this.page.getByTestId('follow-message');
  }

  /** Fills the given search fields and searches. */
  async search(fields: { query?: string; segment?: string; entity?: string; kind?: string }): Promise<void> {
    if (fields.query !== undefined) await this.query.fill(fields.query);
    if (fields.segment !== undefined) await this.segment.selectOption(fields.segment);
    if (fields.entity !== undefined) await this.entity.fill(fields.entity);
    if (fields.kind !== undefined) await this.kind.selectOption(fields.kind);
    await this.searchButton.click();
  }
}

/** A signal card's title (Discover and watchlist items). */
export function signalTitle(item: Locator): Locator {
  return item.locator('.sf-title');
}
