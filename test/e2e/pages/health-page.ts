/** Sources health: the overview, the virtualised table with sort, filters and search, drill-down. */
import type { Locator } from '@playwright/test';
import { AppShell } from './app-shell';

export class HealthPage extends AppShell {
  /** "N of M sources…" */
  get count(): Locator {
    return this.page.getByTestId('health-count');
  }
  stat(name: 'sources' | 'healthy' | 'degraded' | 'down' | 'items-per-hour' | 'signals-24h' | 'miss-rate'): Locator {
    return this.page.getByTestId(`stat-${name}`);
  }
  /** Issue 47: the first screen while no source is fetched. */
  get firstScreen(): Locator {
    return this.page.getByTestId('health-first-screen');
  }
  get firstPack(): Locator {
    return this.page.getByTestId('health-first-pack');
  }
  get overview(): Locator {
    return this.page.getByTestId('health-overview');
  }
  get rows(): Locator {
    return this.page.getByTestId('health-row');
  }
  get changedRows(): Locator {
    return this.page.locator('[data-testid="health-row"][data-changed="true"]');
  }
  get changes(): Locator {
    return this.page.getByTestId('health-change');
  }
  get stale(): Locator {
    return this.page.getByTestId('health-stale');
  }
  get search(): Locator {
    return this.page.getByTestId('health-search');
  }
  get filterHealth(): Locator {
    return this.page.getByTestId('health-filter-health');
  }
  get filterKind(): Locator {
    return this.page.getByTestId('health-filter-kind');
  }
  get scroller(): Locator {
    return this.page.getByTestId('health-scroll');
  }
  get drilldown(): Locator {
    return this.page.getByTestId('source-drilldown');
  }

  /** Clicks a column header to sort by it (`items_24h`, `name`, …). */
  async sortBy(column: string): Promise<void> {
    await this.page.getByTestId(`sort-${column}`).click();
  }
  /** The count line's data part ("N of M"), without the rest of the sentence. */
  async countValue(): Promise<string> {
    return (await this.count.innerText()).split(' sources')[0]!;
  }
  async scrollToEnd(): Promise<void> {
    await this.scroller.evaluate((element) => element.scrollTo(0, element.scrollHeight));
  }
}
