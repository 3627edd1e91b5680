/**
 * The app against a service that lies (test/support/hostile-service.ts), in real Chromium
 * through the browser host. The hostile corpus (forged chips, markers in code, scripts and
 * handlers, javascript:/file:/data:/vbscript: links) is streamed live, saved and reopened from
 * the library, and sent as a research report; every link and chip is clicked (left, middle and
 * shift-click). Nothing may run, the app page may not navigate, no page may open, and no
 * request may leave for another host. One app and one page for the whole file.
 *
 * The browser host opens an approved http(s) link with window.open (it has no shell). Here
 * window.open only records what it was asked to open, so the test can check that everything
 * went through the allow-listed opener, and Chromium never contacts the made-up hosts.
 */
import type { BrowserContext, Locator, Page } from '@playwright/test';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CITED, startHostileService, type HostileService } from '../support/hostile-service';
import { ChatPage, CitationPanel, expect, LibraryPage, ResearchPage, SettingsPage, startApp, stopApp, test, type RunningApp } from './fixtures';

test.describe.configure({ mode: 'serial' });

let hostile: HostileService;
let app: RunningApp;
let context: BrowserContext;
let page: Page;
let chat: ChatPage;
let citations: CitationPanel;
let library: LibraryPage;
let research: ResearchPage;
let settings: SettingsPage;
/** What would have left the page: requests to other hosts, new pages, main-frame navigations, dialogs. */
const escaped = { requests: [] as string[], pages: [] as string[], navigations: [] as string[], dialogs: [] as string[] };

test.beforeAll(async ({ browser }) => {
  hostile = await startHostileService();
  // The app starts pointed at the lying service, expecting an API key, with one corrupt conversation.
  const dataDir = await mkdtemp(join(tmpdir(), 'clarity-e2e-hostile-'));
  await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ version: 1, service: { mode: 'remote', baseUrl: hostile.url }, credentialPresentation: 'x-api-key' }));
  await mkdir(join(dataDir, 'conversations'));
  await writeFile(join(dataDir, 'conversations', 'cnv_00000000000000aa.json'), '{"conversation": truncated');
  app = await startApp({ dataDir });

  context = await browser.newContext();
  await context.addInitScript(() => {
    const w = window as unknown as { __opened: string[]; __violations: string[] };
    w.__opened = [];
    w.__violations = [];
    window.open = (url?: string | URL) => {
      w.__opened.push(String(url));
      return null;
    };
    document.addEventListener('securitypolicyviolation', (event) => w.__violations.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  const appHost = new URL(app.origin).host;
  context.on('request', (request) => {
    if (new URL(request.url()).host !== appHost) escaped.requests.push(request.url());
  });
  page = await context.newPage();
  context.on('page', (opened) => escaped.pages.push(opened.url()));
  page.on('dialog', (dialog) => {
    escaped.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  chat = new ChatPage(page);
  citations = new CitationPanel(page);
  library = new LibraryPage(page);
  research = new ResearchPage(page);
  settings = new SettingsPage(page);
  await chat.open(app);
  // From here on, the app page must never navigate.
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) escaped.navigations.push(frame.url());
  });
});

test.afterAll(async () => {
  await context?.close();
  if (app) await stopApp(app);
  await hostile?.close();
});

/** Clicks every link and chip in `scope`: left click, middle click and shift-click. */
async function clickEverything(scope: Locator): Promise<number> {
  const targets = scope.locator('a, button.cite-chip, [data-cite]');
  const count = await targets.count();
  for (let i = 0; i < count; i += 1) {
    const target = targets.nth(i);
    if (!(await target.isVisible())) continue;
    await target.click();
    if (await target.evaluate((element) => element.tagName !== 'A')) continue;
    // A middle click or shift-click on a link opens a tab or window by default.
    await target.click({ button: 'middle' });
    await target.click({ modifiers: ['Shift'] });
  }
  return count;
}

/** Nothing ran, nothing left the page; every opener call was an http(s) URL the corpus links to. */
async function expectNothingEscaped(): Promise<void> {
  const state = await page.evaluate(() => {
    const w = window as unknown as { __pwned?: unknown; __opened: string[]; __violations: string[] };
    return { pwned: w.__pwned ?? null, opened: w.__opened, violations: w.__violations, url: location.href };
  });
  expect(state.pwned).toBeNull();
  // The CSP may report what it blocked while DOMPurify parses hostile markup in its inert
  // document (inline handlers and styles) and zod's `new Function` probe ("eval"); nothing may
  // have tried to load anything from anywhere.
  for (const violation of state.violations) expect(violation).toMatch(/^(script-src-attr|style-src-attr|script-src) (inline|eval)$/);
  expect(state.url).toBe(`${app.origin}/`);
  expect(escaped).toEqual({ requests: [], pages: [], navigations: [], dialogs: [] });
  // http(s) links from the corpus, and the configured service's own signal pages.
  for (const url of state.opened) expect(url.startsWith(`${hostile.url}/signal/`) || /^https:\/\/(evil\.invalid|retail\.example)\//.test(url), url).toBe(true);
}

/** The hostile corpus rendered inert: only the app's chips, markers in code as text, safe hrefs. */
async function expectInertCorpus(body: Locator): Promise<void> {
  await expect(body).toContainText('Closing line cites another');
  const chips = body.locator('button.cite-chip');
  expect(await chips.evaluateAll((elements) => elements.map((e) => e.getAttribute('data-cite')))).toEqual([CITED[0], CITED[1], CITED[0]]);
  expect(await body.locator('[data-cite]').count()).toBe(3);
  // Markers in code, pre and attributes stay text.
  await expect(body.locator('code').filter({ hasText: '[sig_0000000000000005]' })).toHaveCount(1);
  await expect(body).toContainText('[sig_0000000000000006]');
  await expect(body).toContainText('[sig_0000000000000007]');
  expect(await body.locator('a[title="[sig_0000000000000001]"]').count()).toBe(1);
  expect(await body.locator('script, iframe, svg, math, form, input, img, object, embed, [style], [onclick], [onerror], [target]').count()).toBe(0);
  const hrefs = await body.locator('[href]').evaluateAll((elements) => elements.map((e) => e.getAttribute('href')!));
  for (const href of hrefs) expect(href).toMatch(/^(https?:\/\/|mailto:)/);
}

test('the user is told which file was set aside, and where', async () => {
  const notice = chat.dataNotice;
  await expect(notice).toContainText('1 conversation file could not be read');
  await expect(notice).toContainText(join(app.dataDir, 'conversations'));
  // It stays until the user dismisses it.
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);
});

test('a hostile answer streams in inert; clicking every link and chip neither navigates, opens a page nor runs anything', async () => {
  await chat.ask('What is happening in Pune retail?');
  const answer = chat.lastAnswer();
  await expect(answer).toHaveAttribute('data-status', 'done');
  const body = chat.latest().body;
  await expectInertCorpus(body);
  // Citation URLs that are not http(s) are not links anywhere in the answer.
  await expect(chat.latest().citationList.getByTestId('citation-entry')).toHaveCount(2);
  expect(await answer.locator('[href^="javascript:" i], [href^="file:" i], [href^="data:" i], [href^="vbscript:" i], [href^="clarity:" i]').count()).toBe(0);
  expect(await clickEverything(answer)).toBeGreaterThan(10);
  await expect(citations.root).toBeVisible(); // a chip did open its panel
  await clickEverything(citations.root);
  await expectNothingEscaped();
  // The one http link in prose went through the opener; the forged-chip link is just a link.
  const opened = await page.evaluate(() => (window as unknown as { __opened: string[] }).__opened);
  expect(opened).toContain('https://retail.example/allowed');
});

test('saved and reopened from the library, the same corpus is just as inert', async () => {
  await chat.latest().saveButton.click();
  await library.goTo('library');
  const reader = await library.openItem(library.items.first());
  await expectInertCorpus(reader.body);
  await clickEverything(reader.root);
  await expectNothingEscaped();
});

test('a hostile research report is inert, and so are its sources', async () => {
  // A remote service asks for sign-in before research starts (issue 47): the analyst signs in.
  await settings.saveCredential('ck_e2eHostileResearchKey0000000000');
  const run = await research.start('Hostile report please');
  await expect(run.root).toHaveAttribute('data-state', 'completed');
  await run.openReport.click();
  const report = research.viewer.body;
  await expectInertCorpus(report);
  await clickEverything(report);
  await clickEverything(citations.root);
  await expectNothingEscaped();
});

test('a redirect to another host is refused with a clear error; the API key never reaches that host', async () => {
  await settings.saveCredential('ck_e2eHostileRedirectKey000000000000');
  await chat.goTo('chat');
  await chat.ask('Please redirect this question');
  await expect(chat.latest().error).toContainText('does not follow redirects');
  await expect(chat.lastAnswer()).not.toContainText('ANSWER FROM ELSEWHERE');
  expect(hostile.requests.some((r) => r.apiKey === 'ck_e2eHostileRedirectKey000000000000')).toBe(true); // the key was in play
  expect(hostile.elsewhere.requests).toEqual([]);
  await expectNothingEscaped();
});
