/** The watchlist: followed segments, matched live signals with unread counts, the new-signal notice. */
import { expect, type Locator } from '@playwright/test';
import { AppShell } from './app-shell';

export class WatchlistPage extends AppShell {
  /** The notice that a followed segment has a new signal (with an Open button). */
  get notice(): Locator {
    return this.page.getByTestId('watchlist-notice');
  }
  get items(): Locator {
    return this.page.getByTestId('watchlist-item');
  }
  /** "N unread". */
  get unread(): Locator {
    return this.page.getByTestId('watchlist-unread');
  }
  get follows(): Locator {
    return this.page.getByTestId('watchlist-follows');
  }

  async openFromNotice(): Promise<void> {
    await this.notice.getByRole('button', { name: 'Open' }).click();
  }
  /** Closes the notice if it is shown. */
  async dismissNotice(): Promise<void> {
    if (await this.notice.isVisible()) await this.notice.getByRole('button', { name: 'Dismiss' }).click();
    await expect(this.notice).toBeHidden();
  }
  /** Goes to the watchlist and stops following `value` (a segment, retailer, city or source). */
  async unfollow(value: string): Promise<void> {
    await this.goTo('watchlist');
    const stop = this.follows.getByRole('button', { name: `Stop following ${value}` });
    await stop.click();
    await expect(stop).toHaveCount(0);
  }
  async unreadValue(): Promise<number> {
    return Number((await this.unread.innerText()).match(/\d+/)![0]);
  }
}
