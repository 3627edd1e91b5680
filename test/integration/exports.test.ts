/**
 * Every export format, opened with a real reader, holds every citation of the source item
 * with its title and link: pdftotext for PDF, the DOCX zip's XML (footnotes included), an
 * HTML parser, JSON and CSV parsing. The item is a real cited answer from the local service.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseCsv } from 'csv-parse/sync';
import { JSDOM } from 'jsdom';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import { renderExport, type ExportDocument } from '../../src/main/services/export/exporter';
import type { CitationSnapshot } from '../../src/shared/conversation';
import type { RunningService } from '../../src/service/server';
import { startTestService } from '../support/local-service';

let service: RunningService;
let doc: ExportDocument;
let dir: string;

beforeAll(async () => {
  service = await startTestService();
  dir = await mkdtemp(join(tmpdir(), 'clarity-export-'));
  const client = new RetailSignalClient({ baseUrl: service.url });
  const answer = await client.askJson({ messages: [{ role: 'user', content: 'Kalyan Jewellers in Kochi' }] });
  if (!answer.ok) throw new Error(answer.error.message);
  const citations: CitationSnapshot[] = [];
  for (const id of answer.value.citations) {
    const lookup = await client.getSignal(id);
    if (!lookup.ok) throw new Error(lookup.error.message);
    const { signal, source } = lookup.value;
    citations.push({ id, title: signal.title, source_id: source.id, source_name: source.name, published_at: signal.published_at, url: signal.url, slug: signal.slug, snippet: signal.summary });
  }
  doc = {
    title: 'Kalyan Jewellers in Kochi — ₹ figures & "quotes"',
    kind: 'answer',
    createdAt: '2026-11-21T10:00:00Z',
    // Hostile bits must not survive into HTML.
    markdown: `${answer.value.content}\n\n<script>alert(1)</script> [bad](javascript:alert(1)) <img src=x onerror=alert(1)>`,
    citations,
    meta: { question: 'Kalyan Jewellers in Kochi' },
  };
});
afterAll(async () => {
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

describe('exports keep every citation with its title and link', () => {
  it('has an answer with several citations to check', () => {
    expect(doc.citations.length).toBeGreaterThanOrEqual(3);
  });

  it('markdown: footnotes and a sources section', async () => {
    const text = (await renderExport(doc, 'markdown')).data.toString();
    doc.citations.forEach((c, i) => {
      expect(text).toContain(c.title!);
      expect(text).toContain(c.url!);
      expect(text).toContain(`[^${i + 1}]: `);
    });
    expect(text).not.toMatch(/\[sig_[0-9a-f]{16}\]/);
  });

  it('html: one self-contained, sanitised file, read back by an HTML parser', async () => {
    const html = (await renderExport(doc, 'html')).data.toString();
    const dom = new JSDOM(html);
    const document = dom.window.document;
    expect(document.querySelectorAll('script, iframe, img, link[rel="stylesheet"], [onerror]')).toHaveLength(0);
    expect([...document.querySelectorAll('a[href]')].every((a) => /^(https?:|mailto:|#)/.test(a.getAttribute('href')!))).toBe(true);
    const sources = [...document.querySelectorAll('ol.sources li')];
    expect(sources).toHaveLength(doc.citations.length);
    for (const c of doc.citations) {
      const entry = sources.find((li) => li.textContent!.includes(c.id))!;
      expect(entry.querySelector('a')!.textContent).toBe(c.title);
      expect(entry.querySelector('a')!.getAttribute('href')).toBe(c.url);
    }
    // Every inline citation links to its entry.
    for (const ref of document.querySelectorAll('sup.cite a')) expect(document.querySelector(ref.getAttribute('href')!)).not.toBeNull();
    expect(html).toContain('@media print');
  });

  it('pdf: pdftotext finds every title and link, and the links are clickable annotations', async () => {
    const file = await renderExport(doc, 'pdf');
    const path = join(dir, file.filename);
    await writeFile(path, file.data);
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', path, '-']);
    const flat = stdout.replace(/\s+/g, ' ');
    for (const c of doc.citations) {
      expect(flat).toContain(c.title!.replace(/\s+/g, ' '));
      expect(flat.replace(/ /g, '')).toContain(c.url!);
    }
    expect(flat).toContain('₹');
    const raw = file.data.toString('latin1');
    for (const c of doc.citations) expect(raw).toContain(`/URI (${c.url})`);
  });

  it('docx: real Word footnotes, one per citation, each with title and link', async () => {
    const zip = await JSZip.loadAsync((await renderExport(doc, 'docx')).data);
    const body = await zip.file('word/document.xml')!.async('string');
    const footnotes = await zip.file('word/footnotes.xml')!.async('string');
    const rels = await zip.file('word/_rels/footnotes.xml.rels')!.async('string');
    expect(body.match(/<w:footnoteReference /g)!.length).toBeGreaterThanOrEqual(doc.citations.length);
    for (const [i, c] of doc.citations.entries()) {
      expect(footnotes).toContain(`w:id="${i + 1}"`);
      expect(footnotes).toContain(escapeXml(c.title!));
      expect(rels).toContain(escapeXml(c.url!));
      expect(body).toContain(escapeXml(c.title!));
    }
  });

  it('json: the complete item with its snapshots', async () => {
    const parsed = JSON.parse((await renderExport(doc, 'json')).data.toString()) as ExportDocument;
    expect(parsed.citations).toEqual(doc.citations);
    expect(parsed.markdown).toBe(doc.markdown);
  });

  it('csv: one row per citation, with a UTF-8 BOM', async () => {
    const data = (await renderExport(doc, 'csv')).data;
    expect([...data.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // spreadsheets then read ₹ as ₹
    const rows = parseCsv(data, { bom: true }) as string[][];
    expect(rows[0]).toEqual(['number', 'signal_id', 'title', 'source', 'published_at', 'url', 'snippet', 'source_health_when_cited']);
    expect(rows).toHaveLength(doc.citations.length + 1);
    for (const c of doc.citations) expect(rows.some((row) => row[5] === c.url)).toBe(true);
  });

  it('csv: a cell the service wrote as a formula is text, not a formula', async () => {
    const formulas = ['=HYPERLINK("https://evil.invalid","x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'];
    const hostile: ExportDocument = {
      ...doc,
      markdown: 'An answer whose sources lie.',
      citations: formulas.map((formula, i) => ({ id: `sig_00000000000000f${i}`, title: formula, source_name: formula, url: formula, snippet: `₹ ${i}` })),
    };
    const rows = (parseCsv((await renderExport(hostile, 'csv')).data, { bom: true }) as string[][]).slice(1);
    expect(rows).toHaveLength(formulas.length);
    for (const [i, row] of rows.entries()) {
      // Every text cell a spreadsheet would evaluate starts with ' instead of the formula sign.
      for (const cell of [row[2], row[3], row[5]]) expect(cell).toBe(`'${formulas[i]}`);
      expect(row[6]).toBe(`₹ ${i}`);
    }
  });
});

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A real research report (title heading, bullets, the "Key figures" table) exported the way a
 * reader sees it: the PDF rendered to page images (pdftoppm) and read back with word positions
 * (pdftotext -bbox), Markdown and DOCX opened as text and XML.
 */
describe('a research report exports professionally', () => {
  let reportService: RunningService;
  let report: ExportDocument;
  const bboxWords = async (path: string): Promise<Array<{ page: number; x: number; y: number; word: string }>> => {
    const { stdout } = await promisify(execFile)('pdftotext', ['-bbox', path, '-'], { maxBuffer: 32 * 1024 * 1024 });
    const dom = new JSDOM(stdout, { contentType: 'text/html' });
    return [...dom.window.document.querySelectorAll('page')].flatMap((page, index) =>
      [...page.querySelectorAll('word')].map((w) => ({ page: index + 1, x: Number(w.getAttribute('xmin')), y: Number(w.getAttribute('ymin')), word: w.textContent ?? '' })),
    );
  };

  beforeAll(async () => {
    reportService = await startTestService({ research: { durationMs: 50, queueMs: 10 } });
    const jwt = await reportService.idp.issueToken('exports@example.com');
    const headers = { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' };
    const started = (await (await fetch(`${reportService.url}/api/v1/research`, { method: 'POST', headers, body: JSON.stringify({ topic: 'Zepto in Bengaluru', preset: 'standard' }) })).json()) as { report_url: string };
    const body = (await (await fetch(new URL(started.report_url, reportService.url), { headers })).json()) as { topic: string; created_at: string; markdown: string; citations: Array<{ id: string; title: string; source_id: string; published_at: string; url: string; slug?: string; summary?: string }> };
    report = {
      title: body.topic,
      kind: 'report',
      createdAt: body.created_at,
      markdown: body.markdown,
      citations: body.citations.map((s) => ({ id: s.id, title: s.title, source_id: s.source_id, source_name: s.source_id, published_at: s.published_at, url: s.url, slug: s.slug, snippet: s.summary })),
      meta: {},
    };
  });
  afterAll(async () => reportService.close());

  it('starts from a report with its own title heading and a Key figures table', () => {
    expect(report.markdown).toMatch(/^# Zepto in Bengaluru\n/);
    expect(report.markdown).toContain('| Signal | Date | Measure | Value |');
  });

  it('markdown and DOCX show the title once; DOCX has a real table', async () => {
    const markdown = (await renderExport(report, 'markdown')).data.toString();
    expect(markdown.match(/^# Zepto in Bengaluru$/gm)).toHaveLength(1);
    expect(markdown).toContain('## Sources');
    const zip = await JSZip.loadAsync((await renderExport(report, 'docx')).data);
    const body = await zip.file('word/document.xml')!.async('string');
    const paragraphsWithTitle = body.split('</w:p>').filter((p) => p.replace(/<[^>]+>/g, '') === 'Zepto in Bengaluru');
    expect(paragraphsWithTitle).toHaveLength(1);
    const table = body.slice(body.indexOf('<w:tbl>'), body.indexOf('</w:tbl>'));
    expect(table).toContain('<w:tr>');
    for (const header of ['Signal', 'Date', 'Measure', 'Value']) expect(table).toContain(`<w:t xml:space="preserve">${header}</w:t>`);
    expect(table.match(/<w:tr>/g)!.length).toBeGreaterThan(2);
  });

  it('every format says what it is under the title as an analyst would: "Research report · <date> · exported from Clarity Desktop"', async () => {
    const markdown = (await renderExport(report, 'markdown')).data.toString();
    expect(markdown).toMatch(/^_Research report · .+ · exported from Clarity Desktop_$/m);
    expect(markdown).not.toMatch(/^_report ·/m);
    const html = (await renderExport(report, 'html')).data.toString();
    expect(new JSDOM(html).window.document.querySelector('p.meta')?.textContent).toMatch(/^Research report · .+ · exported from Clarity Desktop$/);
    const docx = await (await JSZip.loadAsync((await renderExport(report, 'docx')).data)).file('word/document.xml')!.async('string');
    expect(docx.replace(/<[^>]+>/g, ' ')).toMatch(/Research report · .+ · exported from Clarity Desktop/);
    const path = join(dir, 'report-subtitle.pdf');
    await writeFile(path, (await renderExport(report, 'pdf')).data);
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', path, '-']);
    expect(stdout).toMatch(/Research report · .+ · exported from Clarity Desktop/);
  });

  it('pdf: one title, the Key figures table as a grid of cells, hanging bullets, page numbers and the sources', async () => {
    const file = await renderExport(report, 'pdf');
    const path = join(dir, 'report.pdf');
    await writeFile(path, file.data);
    const words = await bboxWords(path);
    const pages = Math.max(...words.map((w) => w.page));
    expect(pages).toBeGreaterThanOrEqual(2);

    // One title: "Zepto in Bengaluru" as a line of its own appears once (the heading in the markdown is dropped).
    const { stdout: layout } = await promisify(execFile)('pdftotext', ['-layout', path, '-']);
    expect(layout.split('\n').filter((line) => line.trim() === 'Zepto in Bengaluru')).toHaveLength(1);
    expect(layout).not.toMatch(/Signal\s+\|\s+Date/); // no pipe-separated text

    // The table's header cells share one line, left to right, in four columns…
    const headerY = words.find((w) => w.word === 'Measure')!;
    const headerRow = words.filter((w) => w.page === headerY.page && Math.abs(w.y - headerY.y) < 1);
    const column = (word: string): number => headerRow.find((w) => w.word === word)!.x;
    expect(column('Signal')).toBeLessThan(column('Date'));
    expect(column('Date')).toBeLessThan(column('Measure'));
    expect(column('Measure')).toBeLessThan(column('Value'));
    // …and each data row puts its date in the Date column and its value in the Value column.
    const dates = words.filter((w) => w.page === headerY.page && w.y > headerY.y && Math.abs(w.x - column('Date')) < 2 && /^\d{1,2}$/.test(w.word));
    expect(dates.length).toBeGreaterThanOrEqual(2);
    for (const date of dates.slice(0, 3)) {
      const sameRow = words.filter((w) => w.page === date.page && Math.abs(w.y - date.y) < 1);
      expect(sameRow.some((w) => w.x > column('Measure') && /^[\d,.−]+$/.test(w.word))).toBe(true);
    }
    // The page image (pdftoppm, 72 dpi grey) shows the grid: ruled lines across the table's width
    // (from its first column to its last: a table is as wide as its cells need, as browsers lay it
    // out) at least once per row, and a vertical rule at each column's left edge.
    await promisify(execFile)('pdftoppm', ['-r', '72', '-gray', '-f', String(headerY.page), '-l', String(headerY.page), path, join(dir, 'grid')]);
    const pgm = await readFile(join(dir, `grid-${String(headerY.page).padStart(String(pages).length, '0')}.pgm`));
    const [, width, height] = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))!.map(Number);
    const pixels = pgm.subarray(pgm.length - width! * height!);
    const dark = (x: number, y: number): boolean => pixels[Math.round(y) * width! + Math.round(x)]! < 235;
    const tableTop = headerY.y - 6;
    const [tableLeft, tableRight] = [column('Signal'), column('Value')];
    const ruled = Array.from({ length: height! }, (_, y) => y).filter((y) => y > tableTop && [0.2, 0.4, 0.6, 0.8].every((f) => dark(tableLeft + f * (tableRight - tableLeft), y)));
    const rowLines = ruled.filter((y, i) => i === 0 || y - ruled[i - 1]! > 2);
    expect(rowLines.length).toBeGreaterThanOrEqual(dates.length + 1);
    // (the rule lands on one pixel column of the 72 dpi image, which one depends on where the text's
    // widths put it: look within a pixel either side of the cell's padding)
    for (const word of ['Date', 'Measure']) expect([-5.5, -4.5, -3.5].some((dx) => dark(column(word) + dx, headerY.y + 20))).toBe(true);

    // Bullets hang: the second line of a wrapped bullet starts where the first line's text does, right of the bullet.
    const bullets = words.filter((w) => w.word === '•');
    expect(bullets.length).toBeGreaterThan(3);
    const hanging = bullets.some((bullet) => {
      const first = words.filter((w) => w.page === bullet.page && Math.abs(w.y - bullet.y) < 1 && w.x > bullet.x).sort((a, b) => a.x - b.x)[0];
      const next = words.filter((w) => w.page === bullet.page && w.y > bullet.y + 2 && w.y < bullet.y + 20).sort((a, b) => a.x - b.x)[0];
      return first && next && next.word !== '•' && Math.abs(next.x - first.x) < 1 && next.x > bullet.x + 5;
    });
    expect(hanging).toBe(true);

    // Page numbers on every page, and a sources section naming every citation.
    for (let page = 1; page <= pages; page += 1) expect(layout).toContain(`Page ${page} of ${pages}`);
    const flat = layout.replace(/\s+/g, ' ');
    expect(flat).toContain('Sources');
    for (const c of report.citations) expect(flat).toContain(c.title!.replace(/\s+/g, ' '));
  });
});
