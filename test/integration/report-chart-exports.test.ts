/**
 * Issue 46 item 7: a research report's key-figures series go into the exports as charts, with the
 * figures table kept right after them. A real report from the service over HTTP, saved the way
 * the app does (its series in the document's meta), exported and read back as a reader's tools
 * would: the HTML by an HTML parser, the PDF rendered to a colour page image (pdftoppm) with its
 * words placed (pdftotext -bbox), the DOCX opened as a zip.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JSDOM } from 'jsdom';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderExport, type ExportDocument } from '../../src/main/services/export/exporter';
import type { ReportSeries } from '../../src/shared/research';
import { formatNumber } from '../../src/shared/format';
import type { RunningService } from '../../src/service/server';
import { startTestService } from '../support/local-service';

const run = promisify(execFile);
let service: RunningService;
let report: ExportDocument;
let series: ReportSeries[];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clarity-chart-export-'));
  service = await startTestService();
  const headers = { authorization: `Bearer ${await service.idp.issueToken('charts@example.com')}`, 'content-type': 'application/json', accept: 'application/json' };
  const started = (await (await fetch(`${service.url}/api/v1/research`, { method: 'POST', headers, body: JSON.stringify({ topic: 'DMart store expansion', preset: 'standard' }) })).json()) as { report_url: string };
  const body = (await (await fetch(new URL(started.report_url, service.url), { headers })).json()) as {
    topic: string;
    created_at: string;
    markdown: string;
    series?: Array<{ title: string; kind: 'over_time' | 'by_subject'; points: Array<{ x: string; value: number; citation: string }> }>;
    citations: Array<{ id: string; title: string; source_id: string; published_at: string; url: string; slug?: string; summary?: string }>;
  };
  series = (body.series ?? []).map(({ title, kind, points }) => ({ title, kind, points: points.map(({ x, value, citation }) => ({ x, value, citation })) }));
  report = {
    title: body.topic,
    kind: 'report',
    createdAt: body.created_at,
    markdown: body.markdown,
    citations: body.citations.map((s) => ({ id: s.id, title: s.title, source_id: s.source_id, source_name: s.source_id, published_at: s.published_at, url: s.url, slug: s.slug, snippet: s.summary })),
    meta: { topic: body.topic, series },
  };
});
afterAll(async () => {
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a report with a series exports its key figures drawn, the table beside them', () => {
  it('has a series to draw', () => {
    expect(series.length).toBeGreaterThanOrEqual(1);
    expect(series[0]!.points.length).toBeGreaterThanOrEqual(3);
  });

  it('html: an inline SVG chart per series, each point a link to its numbered source, then the figures table', async () => {
    const html = (await renderExport(report, 'html')).data.toString();
    const dom = new JSDOM(html);
    const document = dom.window.document;
    const figures = [...document.querySelectorAll('figure.chart')];
    expect(figures).toHaveLength(series.length);
    for (const [index, figure] of figures.entries()) {
      const entry = series[index]!;
      expect(figure.querySelector('figcaption')!.textContent).toBe(entry.title);
      const svg = figure.querySelector('svg')!;
      expect(svg.getAttribute('role')).toBe('img');
      expect(svg.getAttribute('aria-label')).toContain(entry.title);
      // One mark per point, titled with its period, value and source number, linked to that source.
      const marks = [...svg.querySelectorAll('a circle, a rect')];
      expect(marks).toHaveLength(entry.points.length);
      for (const [p, point] of entry.points.entries()) {
        const link = marks[p]!.parentElement!;
        const target = document.getElementById(link.getAttribute('href')!.slice(1))!;
        expect(target.tagName).toBe('LI');
        const number = /^source-(\d+)$/.exec(target.id)![1];
        expect(marks[p]!.querySelector('title')!.textContent).toBe(`${point.x}: ${formatNumber(point.value, { maxFractionDigits: 2 })} (source [${number}])`);
        expect(target.querySelector('.id')!.textContent).toBe(point.citation);
      }
    }
    // The table that reads every value out comes right after the charts, in the Key figures section.
    let next = figures.at(-1)!.nextElementSibling;
    while (next && next.tagName === 'P') next = next.nextElementSibling;
    expect(next!.tagName).toBe('TABLE');
    expect(next!.querySelector('th')!.textContent).toBe('Signal');
    let heading = figures[0]!.previousElementSibling;
    while (heading && !/^H[1-6]$/.test(heading.tagName)) heading = heading.previousElementSibling;
    expect(heading!.textContent).toBe('Key figures');
    // Still one self-contained, script-free file.
    expect(document.querySelectorAll('script')).toHaveLength(0);
    expect(html).toContain("Content-Security-Policy\" content=\"default-src 'none'");
  });

  it('pdf: the chart is drawn (its title, axis labels and blue line) above the figures table', async () => {
    const path = join(dir, 'report.pdf');
    await writeFile(path, (await renderExport(report, 'pdf')).data);
    const { stdout } = await run('pdftotext', ['-bbox', path, '-'], { maxBuffer: 32 * 1024 * 1024 });
    const pages = [...new JSDOM(stdout, { contentType: 'text/html' }).window.document.querySelectorAll('page')];
    const words = pages.flatMap((page, index) => [...page.querySelectorAll('word')].map((w) => ({ page: index + 1, x: Number(w.getAttribute('xmin')), y: Number(w.getAttribute('ymin')), word: w.textContent ?? '' })));
    const entry = series[0]!;
    // The chart's title and each period under its axis are text on the page, above the table's header.
    const lastTitleWord = entry.title.split(/\s+/).at(-1)!;
    const title = words.find((w) => w.word === lastTitleWord && words.some((o) => o.page === w.page && Math.abs(o.y - w.y) < 1 && o.word === entry.title.split(/\s+/)[0]))!;
    expect(title).toBeDefined();
    const header = words.find((w) => w.page === title.page && w.word === 'Measure' && w.y > title.y)!;
    expect(header).toBeDefined();
    const between = words.filter((w) => w.page === title.page && w.y > title.y && w.y < header.y).map((w) => w.word);
    for (const point of entry.points) expect(between).toContain(point.x.length > 14 ? `${point.x.slice(0, 13)}…` : point.x);
    // The page image shows the drawn series: the chart's blue (#1f5fbf) fills a band between the
    // title and the table, across more than half the chart's width.
    await run('pdftoppm', ['-r', '72', '-f', String(title.page), '-l', String(title.page), path, join(dir, 'chart')]);
    const ppm = await readFile(join(dir, `chart-${String(title.page).padStart(String(pages.length).length, '0')}.ppm`));
    const [, width, height] = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 40).toString('latin1'))!.map(Number);
    const pixels = ppm.subarray(ppm.length - width! * height! * 3);
    const blueColumns = new Set<number>();
    for (let y = Math.ceil(title.y) + 12; y < Math.floor(header.y) - 4; y += 1)
      for (let x = 0; x < width!; x += 1) {
        const at = (y * width! + x) * 3;
        const [r, g, b] = [pixels[at]!, pixels[at + 1]!, pixels[at + 2]!];
        if (b > 150 && r < 90 && g < 140) blueColumns.add(x);
      }
    expect(blueColumns.size).toBeGreaterThan(240 / 2);
  });

  it('docx: a PNG image of each chart with its title as alt text, then the figures table', async () => {
    const zip = await JSZip.loadAsync((await renderExport(report, 'docx')).data);
    const media = Object.keys(zip.files).filter((name) => /^word\/media\/.+\.png$/.test(name));
    expect(media).toHaveLength(series.length);
    for (const name of media) {
      const png = await zip.file(name)!.async('nodebuffer');
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.readUInt32BE(16)).toBe(960); // drawn at twice the chart's width, for print
    }
    const body = await zip.file('word/document.xml')!.async('string');
    const drawing = body.indexOf('<w:drawing>');
    const table = body.indexOf('<w:tbl>');
    expect(drawing).toBeGreaterThan(0);
    expect(table).toBeGreaterThan(drawing);
    expect(body.slice(0, drawing)).toContain('Key figures');
    const docPr = /<wp:docPr [^>]*>/.exec(body)![0];
    expect(docPr).toContain(`title="${series[0]!.title}"`);
    expect(docPr).toMatch(/descr="[^"]*The table after the chart gives each value with its source/);
    for (const header of ['Signal', 'Date', 'Measure', 'Value']) expect(body.slice(table)).toContain(`<w:t xml:space="preserve">${header}</w:t>`);
  });
});
