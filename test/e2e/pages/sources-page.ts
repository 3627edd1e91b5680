/** Sources: the feeds the service fetches, added by pasting an address, their health facts, proposals. */
import { expect, type Locator } from '@playwright/test';
import { AppShell } from './app-shell';

export class SourcesPage extends AppShell {
  get addForm(): Locator {
    return this.page.getByTestId('add-source');
  }
  get url(): Locator {
    return this.page.getByTestId('add-source-url');
  }
  get kind(): Locator {
    return this.page.getByTestId('add-source-kind');
  }
  get name(): Locator {
    return this.page.getByTestId('add-source-name');
  }
  get previewButton(): Locator {
    return this.page.getByTestId('add-source-preview');
  }
  get previewItems(): Locator {
    return this.page.getByTestId('preview-item');
  }
  get confirmAdd(): Locator {
    return this.page.getByTestId('add-source-confirm');
  }
  get addError(): Locator {
    return this.page.getByTestId('add-source-error');
  }
  get notAdmin(): Locator {
    return this.page.getByTestId('sources-not-admin');
  }
  get sample(): Locator {
    return this.page.getByTestId('sources-sample');
  }
  get cards(): Locator {
    return this.page.getByTestId('source-card');
  }
  card(name: string): Locator {
    return this.cards.filter({ has: this.page.getByTestId('source-name').getByText(name, { exact: true }) });
  }

  /** Issue 47: the question before an address on the analyst's private network is fetched. */
  get privateHostConsent(): Locator {
    return this.page.getByTestId('private-host-consent');
  }
  get privateHostYes(): Locator {
    return this.page.getByTestId('private-host-yes');
  }
  /** The first screen while no source is fetched, and its two actions. */
  get firstScreen(): Locator {
    return this.page.getByTestId('sources-first-screen');
  }
  get firstAdd(): Locator {
    return this.page.getByTestId('sources-first-add');
  }
  get firstPack(): Locator {
    return this.page.getByTestId('sources-first-pack');
  }
  get starterPack(): Locator {
    return this.page.getByTestId('starter-pack');
  }
  get starterSources(): Locator {
    return this.page.getByTestId('starter-source');
  }

  /** Opens the view and waits until the service has said whether the analyst is its administrator. */
  async openView(): Promise<void> {
    await this.goTo('sources');
    await expect(this.addForm.or(this.notAdmin)).toBeVisible();
  }

  /** Pastes an address, previews it (waiting for the items or the error). */
  async preview(fields: { url: string; kind?: string; name?: string }): Promise<void> {
    await this.url.fill(fields.url);
    if (fields.kind) await this.kind.selectOption(fields.kind);
    if (fields.name !== undefined) await this.name.fill(fields.name);
    await this.previewButton.click();
    await expect(this.previewItems.first().or(this.addError)).toBeVisible();
  }
}
