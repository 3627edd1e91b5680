/**
 * The citation side panel, opened from a chip in chat, a report, the library, Discover or the
 * watchlist: the signal, its source, health when cited and now, every citation of the item.
 */
import type { Locator, Page } from '@playwright/test';

export class CitationPanel {
  constructor(readonly page: Page) {}

  get root(): Locator {
    return this.page.getByTestId('citation-panel');
  }
  get title(): Locator {
    return this.root.getByTestId('panel-title');
  }
  get source(): Locator {
    return this.root.getByTestId('panel-source');
  }
  get snippet(): Locator {
    return this.root.getByTestId('panel-snippet');
  }
  get entities(): Locator {
    return this.root.getByTestId('panel-entities');
  }
  get metrics(): Locator {
    return this.root.getByTestId('panel-metrics');
  }
  /** "when cited: healthy|degraded|down". */
  get healthWhenCited(): Locator {
    return this.root.getByTestId('health-when cited');
  }
  /** "now: healthy|degraded|down". */
  get healthNow(): Locator {
    return this.root.getByTestId('health-now');
  }
  /** The highlighted span of the signal's body that supports the cited sentence. */
  get supportSpan(): Locator {
    return this.root.getByTestId('support-span');
  }
  get openSignal(): Locator {
    return this.root.getByTestId('panel-open-signal');
  }
  /** One `li` per citation of the answer or report the panel belongs to. */
  get allCitations(): Locator {
    return this.root.getByTestId('panel-all-citations').locator('li');
  }
  /** "Ask about this signal" in Discover and the watchlist. */
  get askAboutSignal(): Locator {
    return this.page.getByTestId('ask-about-signal');
  }
  /** A forecast button for a metric of the signal (e.g. `revenue_cr`). */
  forecastButton(metric: string): Locator {
    return this.page.getByTestId(`forecast-${metric}`);
  }
  get forecast(): Locator {
    return this.page.getByTestId('forecast-panel');
  }
  /** A part of the forecast panel: its chart, band, value, interval, method or basis. */
  forecastPart(part: 'chart' | 'band' | 'value' | 'interval' | 'method' | 'basis' | 'axis' | 'axis-name' | 'tick'): Locator {
    return this.forecast.getByTestId(`forecast-${part}`);
  }
}
