/**
 * What every view shares: the launch (one-time link, then the session cookie), the navigation
 * rail and the app-wide notices. Views extend it so a spec can move between them.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import type { RunningApp } from '../app-process';

/** The views of the navigation rail (data-testid `nav-<view>`; `View` in the renderer's store). */
export type ViewName = 'chat' | 'research' | 'library' | 'discover' | 'watchlist' | 'health' | 'sources' | 'settings';

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
    await this.page.getByTestId(`nav-${view}`).click();
  }

  /** The unread count on the watchlist's navigation entry. */
  get navUnread(): Locator {
    return this.page.getByTestId('nav-unread');
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
