/**
 * Responsive layout (issue 16): at 760, 1024 and 1440 px wide every view, with its citation
 * panel open where it has one, fits the window: no horizontal scroll, nothing clipped at the
 * right edge, and in Ask the toolbar, the panel, the composer and its button never overlap.
 * Screenshots of each are attached to the run.
 */
import type { Page } from '@playwright/test';
import { expect, oneAppForThisFile, test } from './fixtures';
import { FAST_RESEARCH, openView, prepareData, VIEWS } from './views';

const WIDTHS = [760, 1024, 1440];

interface Box {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The boxes of the visible elements matching each selector. */
async function boxes(page: Page, selectors: Record<string, string>): Promise<Box[]> {
  return page.evaluate((entries) => {
    const found: Box[] = [];
    for (const [name, selector] of entries) {
      for (const element of document.querySelectorAll(selector)) {
        const rect = element.getBoundingClientRect();
        if (rect.width > 0 && rect.height > 0 && getComputedStyle(element).visibility !== 'hidden') found.push({ name, x: rect.x, y: rect.y, width: rect.width, height: rect.height });
      }
    }
    return found;
  }, Object.entries(selectors));
}

const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;

/** Pairs of the named boxes that overlap. */
function overlapping(found: Box[]): string[] {
  const pairs: string[] = [];
  for (let i = 0; i < found.length; i++) for (let j = i + 1; j < found.length; j++) if (found[i]!.name !== found[j]!.name && overlaps(found[i]!, found[j]!)) pairs.push(`${found[i]!.name} × ${found[j]!.name}`);
  return pairs;
}

/** No horizontal scroll, and no visible control reaching past the window's right edge. */
async function fitsWidth(page: Page): Promise<{ scrollWidth: number; clientWidth: number; clipped: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const clipped: string[] = [];
    for (const element of document.querySelectorAll<HTMLElement>('button, input, select, textarea, a, h1')) {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || getComputedStyle(element).visibility === 'hidden') continue;
      // Inside a scroller of its own (a table, a list) an element may run on: the scroller shows it.
      const clippedByScroller = element.closest('.source-scroll, .sf-results, pre, table');
      if (!clippedByScroller && rect.right > root.clientWidth + 0.5) clipped.push(`${element.tagName.toLowerCase()} "${(element.textContent || element.getAttribute('aria-label') || '').trim().slice(0, 30)}" ends at ${Math.round(rect.right)}`);
    }
    return { scrollWidth: Math.max(root.scrollWidth, document.body.scrollWidth), clientWidth: root.clientWidth, clipped };
  });
}

// The health view's rows and drill-down come from the replayed sample (it reports no health otherwise).
const app = oneAppForThisFile({ serviceArgs: [...FAST_RESEARCH, '--replay-sample'] });

test('every view fits at 760, 1024 and 1440 px: no overlap, no horizontal scroll', async ({ page, chat }, testInfo) => {
  test.setTimeout(420_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await chat.open(app());
  await prepareData(page, chat);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width < 1000 ? 700 : 900 });
    for (const view of VIEWS) {
      await openView(page, view);
      await page.screenshot({ path: testInfo.outputPath(`${width}-${view}.png`) });
      const fit = await fitsWidth(page);
      expect.soft(fit.scrollWidth, `${view} at ${width} px scrolls sideways`).toBeLessThanOrEqual(fit.clientWidth);
      expect.soft(fit.clipped, `${view} at ${width} px: controls past the right edge`).toEqual([]);
      const chrome = { nav: 'nav.sidebar', panel: '[data-testid="citation-panel"], [data-testid="source-drilldown"]' };
      const found =
        view === 'chat'
          ? await boxes(page, { ...chrome, toolbar: '.chat-toolbar', composer: '[data-testid="composer-input"]', button: '[data-testid="send"]' })
          : await boxes(page, chrome);
      expect.soft(overlapping(found), `${view} at ${width} px`).toEqual([]);
      if (view === 'chat') expect.soft(found.map((b) => b.name).sort(), `ask at ${width} px shows all four`).toEqual(['button', 'composer', 'nav', 'panel', 'toolbar']);
    }
  }
});
