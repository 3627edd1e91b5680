/**
 * What every view shares: the launch (one-time link, then the session cookie), the navigation
 * rail and the app-wide notices. Views extend it so a spec can move between them.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import type { RunningApp } from '../app-process';
import { navTestId, type View } from '../../../src/renderer/src/app/view-registry';

/** The views of the navigation rail: the renderer's registry, the one list of them. */
export type ViewName = View;

export class AppShell {
  constructor(readonly page: Page) {}

  /**
   * The launch link works once (SECURITY.md): the first page trades it for the session cookie,
   * which later pages on the same app (other contexts) are given instead. Resolves once the
   * status bar says the service is ready.
   */
  async open(app: RunningApp): Promise<void> {
    if (app.session) {
      await this.page.context().addCookies([{ ...app.session, url: app.origin }]);
      await this.page.goto(app.origin);
    } else {
      await this.page.goto(app.launchUrl);
      const cookie = (await this.page.context().cookies(app.origin)).find((c) => c.name === 'clarity_session');
      if (cookie) app.session = { name: cookie.name, value: cookie.value };
    }
    await expect(this.page.getByTestId('service-state')).toHaveText(/^ready/);
  }

  /** Clicks the view's entry in the navigation rail. */
  async goTo(view: ViewName): Promise<void> {
    await this.page.getByTestId(navTestId(view)).click();
  }

  /** The unread count on the watchlist's navigation entry. */
  get navUnread(): Locator {
    return this.page.getByTestId('nav-unread');
  }

  /** The count on Research's navigation entry: scheduled reports with changes not opened yet (issue 46). */
  get navResearchChanged(): Locator {
    return this.page.getByTestId('nav-research-changed');
  }

  /** The app-wide notice (a research report is ready, …). */
  get appNotice(): Locator {
    return this.page.getByTestId('app-notice');
  }

  /** A deprecation the service in use announced, told once until dismissed. */
  get serviceNotice(): Locator {
    return this.page.getByTestId('service-notice');
  }

  /** The notice about data files that could not be read. */
  get dataNotice(): Locator {
    return this.page.getByTestId('data-notice');
  }
}
