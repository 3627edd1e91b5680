/** The watchlist: followed segments, matched live signals with unread counts, the new-signal notice. */
import type { Locator } from '@playwright/test';
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
  async unreadValue(): Promise<number> {
    return Number((await this.unread.innerText()).match(/\d+/)![0]);
  }
}
