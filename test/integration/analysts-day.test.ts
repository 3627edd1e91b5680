/**
 * One date, the analyst's day (issue 43 item 4, decision 0036). A fetched item published at
 * 23:30 UTC on 12 Nov 2026 is 05:00 on 13 Nov in India: the answer's text says 13 Nov 2026 (JSON
 * and SSE alike), the same date the app shows for it (src/shared/format.ts formatDate in the
 * analyst's zone); a request naming another zone (`time_zone`, an extension) gets that zone's
 * day; a zone that is not one is refused with a clear 400; a research report dates it the same
 * way. The real service over HTTP, fetching a real feed from the fixture web.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDate } from '../../src/shared/format';
import { createSignalStore, startService, type RunningService } from '../../src/service/server';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { renderExport } from '../../src/main/services/export/exporter';
import { buildDocument } from '../../src/main/services/export/documents';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { citationSnapshot } from '../support/citation-snapshot';
import { ask, parseSseText, postJson } from '../support/local-service';
import { waitFor } from '../support/wait-for';
import { serviceEntry } from '../support/built-code';

const LATE = { id: 'zepto-late', title: 'Zepto shares listed on the NSE', html: '<p>Zepto listed its shares on the National Stock Exchange; its Pune team rang the bell.</p>', published: '2026-11-12T23:30:00Z' };
const LEAD = { id: 'zepto-lead', title: 'Zepto dark stores in Pune pass 120', html: '<p>Zepto now runs more than 120 dark stores in Pune, the company said.</p>', published: '2026-11-14T06:00:00Z' };
const EARLIER = { id: 'zepto-earlier', title: 'Zepto opens dark stores in Pune suburbs', html: '<p>Zepto opened dark stores in Pune suburbs Wakad and Hadapsar.</p>', published: '2026-11-10T08:00:00Z' };
const QUESTION = 'Zepto dark stores in Pune';

let web: FixtureWeb;
let service: RunningService;
type Citation = { id: string; title: string; published_at: string };
type Answer = { content: string; citations: string[] };

/** A cited signal as the app gets it (its lookup): the app dates it from `published_at`. */
const lookup = async (id: string): Promise<Citation> => ((await (await fetch(`${service.url}/api/v1/signals/${id}`)).json()) as { signal: Citation }).signal;

beforeAll(async () => {
  web = await startFixtureWeb();
  for (const item of [EARLIER, LATE, LEAD]) web.publish('json', item);
  service = await startService({
    store: createSignalStore({ signalCount: 0 }),
    paceMs: 0,
    liveFeed: false,
    sample: 'off',
    feed: {
      allowedPrivateHosts: [web.host],
      politeIntervalMs: 0,
      tickMs: 25,
      sources: [{ id: 'pune-desk', name: 'Pune Desk', kind: 'jsonfeed', url: `${web.url}/feed.json`, cadence_s: 3_600 }],
    },
  });
  await waitFor(async () => {
    const page = (await (await fetch(`${service.url}/api/v1/discover?q=Zepto&limit=50`)).json()) as { items: Array<{ title: string }> };
    return [LATE, LEAD, EARLIER].every((item) => page.items.some((found) => found.title === item.title));
  }, { timeout: 30_000, what: 'the three Zepto items fetched' });
}, 60_000);

afterAll(async () => {
  await service?.close();
  await web?.close();
});

/** Each "- **date** — … [sig_…]" line of an answer: the signal it cites and the date it shows. */
function datedLines(content: string): Array<{ id: string; shown: string }> {
  return [...content.matchAll(/^- \*\*(\d{1,2} [A-Z][a-z]{2} \d{4})\*\* — .*\[(sig_[0-9a-f]{16})\]/gm)].map((match) => ({ shown: match[1]!, id: match[2]! }));
}

/** The answer's dated lines agree with the date the app shows for each cited signal, in `zone`. */
async function expectAppDates(answer: Answer, zone: string): Promise<Citation> {
  const lines = datedLines(answer.content);
  expect(lines.length).toBeGreaterThan(0);
  const cited = await Promise.all(answer.citations.map(lookup));
  for (const line of lines) {
    const signal = cited.find((citation) => citation.id === line.id)!;
    expect(line.shown, signal.title).toBe(formatDate(signal.published_at, zone));
  }
  const late = cited.find((citation) => citation.title === LATE.title)!;
  expect(late.published_at).toBe('2026-11-12T23:30:00.000Z');
  expect(lines.map((line) => line.id)).toContain(late.id);
  return late;
}

describe("an answer's dates are the analyst's day", () => {
  it('JSON: the item published at 23:30 UTC is dated 13 Nov 2026 (India), as the app shows it', async () => {
    const answer = (await (await postJson(`${service.url}/api/v1/ask`, ask(QUESTION))).json()) as Answer;
    const late = await expectAppDates(answer, 'Asia/Kolkata');
    expect(answer.content).toContain(`**13 Nov 2026** — `);
    expect(answer.content).not.toContain('12 Nov 2026');
    expect(formatDate(late.published_at, 'Asia/Kolkata')).toBe('13 Nov 2026');
    // The analyst's own feed is not called synthetic (only the sample is).
    expect(answer.content).toContain('Figures come from individual signals (the sources cited)');
    expect(answer.content).not.toContain('synthetic');
  });

  it('SSE: the streamed text carries the same dates', async () => {
    const response = await postJson(`${service.url}/api/v1/ask`, ask(QUESTION, { stream: true }));
    expect(response.status).toBe(200);
    const frames = parseSseText(await response.text());
    const text = frames.flatMap((frame) => (frame.event === 'content_block_delta' ? [(frame.data as { delta: { text: string } }).delta.text] : [])).join('');
    const citations = frames.flatMap((frame) => (frame.event === 'clarity.citation_emitted' ? [(frame.data as { citation: Citation }).citation.id] : []));
    await expectAppDates({ content: text, citations }, 'Asia/Kolkata');
    expect(text).toContain('**13 Nov 2026** — ');
  });

  it('a request naming its zone (time_zone) gets that zone\'s day: 12 Nov 2026 in UTC, in JSON and SSE', async () => {
    const json = (await (await postJson(`${service.url}/api/v1/ask`, ask(QUESTION, { time_zone: 'UTC' }))).json()) as Answer;
    await expectAppDates(json, 'UTC');
    expect(json.content).toContain('**12 Nov 2026** — ');
    const frames = parseSseText(await (await postJson(`${service.url}/api/v1/ask`, ask(QUESTION, { stream: true, time_zone: 'America/New_York' }))).text());
    const text = frames.flatMap((frame) => (frame.event === 'content_block_delta' ? [(frame.data as { delta: { text: string } }).delta.text] : [])).join('');
    expect(text).toContain('**12 Nov 2026** — ');
  });

  it('refuses a zone that is not one, saying what it wants', async () => {
    for (const zone of ['Mars/Olympus', '+05:30', '']) {
      const response = await postJson(`${service.url}/api/v1/ask`, ask(QUESTION, { time_zone: zone }));
      expect(response.status, zone).toBe(400);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error).toBe('invalid_request');
      expect(body.message).toMatch(/time_zone.*IANA zone name such as Asia\/Kolkata/);
    }
  });

  it('an export of the answer (Markdown, HTML) dates the item in its sources as the answer text does', async () => {
    const answer = (await (await postJson(`${service.url}/api/v1/ask`, ask(QUESTION))).json()) as Answer;
    const cited = await Promise.all(answer.citations.map(lookup));
    const late = cited.find((citation) => citation.title === LATE.title)!;
    // As the app saves it: each citation's snapshot, with the signal's own published_at.
    const citations = cited.map((signal) => ({ ...citationSnapshot(signal.id, { body: signal.title, metrics: {}, citedAt: '2026-12-01T00:00:00Z' }), title: signal.title, source_name: 'Pune Desk', published_at: signal.published_at }));
    const doc = { title: QUESTION, kind: 'answer' as const, createdAt: '2026-12-01T00:00:00Z', markdown: answer.content, citations, meta: {} };
    const markdown = (await renderExport(doc, 'markdown')).data.toString();
    const html = (await renderExport(doc, 'html')).data.toString();
    // The answer's line and the export's source entry for the 23:30 UTC item: the same day.
    expect(markdown).toContain(`**13 Nov 2026** — Zepto listed its shares`);
    expect(markdown).toMatch(new RegExp(`${LATE.title} — Pune Desk — 13 Nov 2026`));
    expect(html).toContain('13 Nov 2026');
    expect(html).not.toContain('12 Nov 2026');
    expect(markdown).not.toContain('12 Nov 2026');
    expect(late.published_at).toBe('2026-11-12T23:30:00.000Z');
  });

  it("exports and library files date the item in the app's display zone, as its source list does: New York and India", { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarity-zone-exports-'));
    try {
      for (const zone of ['America/New_York', 'Asia/Kolkata']) {
        // The app sends its display zone with the ask (decision 0036) and exports in the same zone.
        const answer = (await (await postJson(`${service.url}/api/v1/ask`, ask(QUESTION, { time_zone: zone }))).json()) as Answer;
        const cited = await Promise.all(answer.citations.map(lookup));
        const late = cited.find((citation) => citation.title === LATE.title)!;
        // What the app's source list and footnotes show for the 23:30 UTC item in this zone.
        const shown = formatDate(late.published_at, zone);
        const other = zone === 'Asia/Kolkata' ? '12 Nov 2026' : '13 Nov 2026';
        expect(shown).toBe(zone === 'Asia/Kolkata' ? '13 Nov 2026' : '12 Nov 2026');
        const citations = cited.map((signal) => ({ ...citationSnapshot(signal.id, { body: signal.title, metrics: {}, citedAt: '2026-12-01T00:00:00Z' }), title: signal.title, source_name: 'Pune Desk', published_at: signal.published_at }));
        // Saved to the library as the app saves it, its readable copy written in the display zone.
        const library = await LibraryStore.open(join(dir, zone.replace('/', '-')), Date.now, () => zone);
        const conversations = await ConversationStore.open(join(dir, zone.replace('/', '-')));
        const item = await library.save({ kind: 'answer', title: QUESTION, markdown: answer.content, citations, createdAt: '2026-11-12T23:45:00Z', meta: {} });
        const copyName = (await readdir(join(dir, zone.replace('/', '-'), 'library'))).find((name) => name.startsWith(item.id) && name.endsWith('.md'))!;
        const copy = await readFile(join(dir, zone.replace('/', '-'), 'library', copyName), 'utf8');
        expect(copy).toContain(`${LATE.title} — Pune Desk, ${shown}`);
        // Exported through the app's own path (the bridge builds the document with the display zone).
        const doc = (await buildDocument({ kind: 'library', id: item.id }, { conversations, library, research: null, serviceUrl: () => service.url, timeZone: () => zone }))!;
        const markdown = (await renderExport(doc, 'markdown')).data.toString();
        const html = (await renderExport(doc, 'html')).data.toString();
        const text = (await renderExport(doc, 'text')).data.toString();
        const docx = await (await JSZip.loadAsync((await renderExport(doc, 'docx')).data)).file('word/footnotes.xml')!.async('string');
        const pdfPath = join(dir, `${zone.replace('/', '-')}.pdf`);
        await writeFile(pdfPath, (await renderExport(doc, 'pdf')).data);
        const pdf = (await promisify(execFile)('pdftotext', ['-layout', pdfPath, '-'])).stdout.replace(/\s+/g, ' ');
        expect(answer.content).toContain(`**${shown}** — Zepto listed its shares`);
        expect(markdown).toContain(`${LATE.title} — Pune Desk — ${shown}`);
        expect(html).toContain(`Pune Desk, ${shown}`);
        expect(text).toContain(`${LATE.title} — Pune Desk — ${shown}`);
        expect(docx).toContain(`Pune Desk, ${shown}`);
        expect(pdf).toContain(`Pune Desk, ${shown}`);
        // The export's own date (saved 23:45 UTC on 12 Nov) is the analyst's day too.
        expect(markdown).toContain(`_Answer · ${shown} · exported from Clarity Desktop_`);
        for (const written of [copy, markdown, html, text, docx, pdf]) expect(written).not.toContain(other);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a research report dates the item the same way', async () => {
    const token = await service.idp.issueToken('dates@example.com');
    const headers = { authorization: `Bearer ${token}` };
    const report = async (body: Record<string, unknown>): Promise<string> => {
      const started = (await (await postJson(`${service.url}/api/v2/research`, { topic: 'Zepto dark stores in Pune', ...body }, headers)).json()) as { id: string };
      await waitFor(async () => ((await (await fetch(`${service.url}/api/v1/research/${started.id}`, { headers })).json()) as { status: string }).status === 'completed', { timeout: 30_000, what: 'the report' });
      return ((await (await fetch(`${service.url}/api/v1/research/${started.id}/report`, { headers })).json()) as { markdown: string }).markdown;
    };
    const india = await report({});
    // Key developments lists the listing by its headline (the Overview already tells its summary).
    expect(india).toMatch(/- \*\*13 Nov 2026\*\* — Zepto shares listed on the NSE/);
    const utc = await report({ time_zone: 'UTC' });
    expect(utc).toMatch(/- \*\*12 Nov 2026\*\* — Zepto shares listed on the NSE/);
  });

  it('the service refuses --time-zone that is not a zone, saying what it wants, and starts nothing', { timeout: 60_000 }, async () => {
    const run = promisify(execFile)(process.execPath, [...serviceEntry(), '--port', '0', '--time-zone', 'Mars/Olympus']);
    const failed = (await run.then(() => null, (error: unknown) => error)) as { code: number; stderr: string } | null;
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('--time-zone: "Mars/Olympus" is not a time zone: give an IANA zone name such as Asia/Kolkata');
  });
});
