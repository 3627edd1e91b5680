/** The status bar: which service, its state, the rate limit and a refused credential. */
import type { Locator, Page } from '@playwright/test';

export class StatusBar {
  constructor(readonly page: Page) {}

  get root(): Locator {
    return this.page.getByTestId('status-bar');
  }
  /** "Local demo service — … (http://127.0.0.1:port)" or "Remote: <url>". */
  get serviceLabel(): Locator {
    return this.page.getByTestId('service-label');
  }
  /** "ready", "Restarting it…" and so on. */
  get serviceState(): Locator {
    return this.page.getByTestId('service-state');
  }
  get rateCountdown(): Locator {
    return this.page.getByTestId('rate-countdown');
  }
  get rateRemaining(): Locator {
    return this.page.getByTestId('rate-remaining');
  }
  get credentialRejected(): Locator {
    return this.page.getByTestId('credential-rejected');
  }

  /** The URL of the embedded local service, as the label shows it. */
  async serviceUrl(): Promise<string> {
    return (await this.serviceLabel.innerText()).match(/\((http:\/\/127\.0\.0\.1:\d+)\)/)![1]!;
  }

  /** The seconds the rate-limit countdown shows now. */
  async rateCountdownSeconds(): Promise<number> {
    return Number((await this.rateCountdown.innerText()).match(/(\d+) s/)![1]);
  }
}
