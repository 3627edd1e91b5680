/**
 * Every export format, opened with a real reader, holds every citation of the source item
 * with its title and link: pdftotext for PDF, the DOCX zip's XML (footnotes included), an
 * HTML parser, JSON and CSV parsing. The item is a real cited answer from the local service.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseCsv } from 'csv-parse/sync';
import { JSDOM } from 'jsdom';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetailSignalClient } from '../../src/main/services/api-client';
import { renderExport, type ExportDocument } from '../../src/main/services/exporter';
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
