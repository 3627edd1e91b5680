/** The offline library: search, filters, the list, the reader with rename/tag/delete and undo. */
import type { Locator } from '@playwright/test';
import { AppShell } from './app-shell';

export class LibraryPage extends AppShell {
  get search(): Locator {
    return this.page.getByTestId('library-search');
  }
  get filterKind(): Locator {
    return this.page.getByTestId('library-filter-kind');
  }
  get filterEntity(): Locator {
    return this.page.getByTestId('library-filter-entity');
  }
  get filterTag(): Locator {
    return this.page.getByTestId('library-filter-tag');
  }
  get items(): Locator {
    return this.page.getByTestId('library-item');
  }
  item(hasText: string): Locator {
    return this.items.filter({ hasText });
  }
  get undoDelete(): Locator {
    return this.page.getByTestId('library-undo-delete');
  }
  get reader(): LibraryReader {
    return new LibraryReader(this.page.getByTestId('library-reader'));
  }

  /** Opens an item of the list in the reader. */
  async openItem(item: Locator): Promise<LibraryReader> {
    await item.getByRole('button').first().click();
    return this.reader;
  }
}

export class LibraryReader {
  constructor(readonly root: Locator) {}

  get body(): Locator {
    return this.root.getByTestId('library-body');
  }
  get chips(): Locator {
    return this.root.getByTestId('citation-chip');
  }
  get title(): Locator {
    return this.root.getByTestId('library-title');
  }
  get tags(): Locator {
    return this.root.getByTestId('library-tags');
  }
  get saveMeta(): Locator {
    return this.root.getByTestId('library-save-meta');
  }
  get deleteButton(): Locator {
    return this.root.getByTestId('library-delete');
  }

  async rename(title: string, tags: string): Promise<void> {
    await this.title.fill(title);
    await this.tags.fill(tags);
    await this.saveMeta.click();
  }
}
