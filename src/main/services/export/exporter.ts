/**
 * Exports of cited answers, conversations and reports. Every format keeps every citation with
 * the signal's title, source, date and link:
 *   markdown  footnotes plus a sources section
 *   html      one self-contained, print-friendly file; safe by construction (raw HTML from the
 *             service is escaped, only http(s)/mailto links survive)
 *   pdf       pdfkit, with clickable source links
 *   docx      real Word footnotes
 *   json      the complete item with its signal snapshots
 *   csv       one row per citation
 */
import { AlignmentType, Document, ExternalHyperlink, FootnoteReferenceRun, HeadingLevel, ImageRun, Packer, Paragraph, Table, TableCell, TableRow, TextRun, WidthType } from 'docx';
import { Lexer, Marked, type Token, type Tokens } from 'marked';
import { toPdf } from './export-pdf';
import { chartPng, chartSlot, chartSvg, CHART_HEIGHT, CHART_WIDTH, drawableSeries } from './report-charts';
import { bodyMarkdown, inlineRuns, numbering, SAFE_LINK, sourceLine, subtitleOf, type ExportDocument, type Run } from './export-runs';

export type { ExportDocument } from './export-runs';
import { CITATION_MARKER, toMarkdownWithFootnotes, toPlainTextWithSources } from '../../../shared/cite-format';
import { LIBRARY_FORMAT_VERSION, type ExportFormat } from '../../../shared/library';
import { httpHref } from '../../../shared/safe-href';
import { stringify as stringifyCsv } from 'csv-stringify/sync';

export interface ExportFile {
  filename: string;
  mime: string;
  data: Buffer;
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export function exportFilename(doc: ExportDocument, extension: string): string {
  const base = doc.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'clarity-export';
  return `${base}.${extension}`;
}

export async function renderExport(doc: ExportDocument, format: ExportFormat): Promise<ExportFile> {
  switch (format) {
    case 'markdown':
      return { filename: exportFilename(doc, 'md'), mime: 'text/markdown', data: Buffer.from(toMarkdown(doc)) };
    case 'html':
      return { filename: exportFilename(doc, 'html'), mime: 'text/html', data: Buffer.from(toHtml(doc)) };
    case 'json':
      return { filename: exportFilename(doc, 'json'), mime: 'application/json', data: Buffer.from(`${JSON.stringify({ format: `clarity-export/${LIBRARY_FORMAT_VERSION}`, ...doc }, null, 2)}\n`) };
    case 'csv':
      return { filename: exportFilename(doc, 'csv'), mime: 'text/csv', data: Buffer.from(toCsv(doc)) };
    case 'docx':
      return { filename: exportFilename(doc, 'docx'), mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', data: await toDocx(doc) };
    case 'pdf':
      return { filename: exportFilename(doc, 'pdf'), mime: 'application/pdf', data: await toPdf(doc) };
    case 'text':
      return { filename: exportFilename(doc, 'txt'), mime: 'text/plain', data: Buffer.from(`${doc.title}\n\n${toPlainTextWithSources(bodyMarkdown(doc), doc.citations, { zone: doc.timeZone })}`) };
  }
}

export function toMarkdown(doc: ExportDocument): string {
  return `# ${doc.title}\n\n_${subtitleOf(doc)}_\n\n${toMarkdownWithFootnotes(bodyMarkdown(doc), doc.citations, { zone: doc.timeZone })}`;
}

/**
 * One row per citation. SECURITY: csv-stringify prefixes a cell that starts with `=`, `+`, `-`,
 * `@`, tab or CR with `'`, so a spreadsheet shows the service's text instead of running it as a
 * formula; the UTF-8 BOM makes spreadsheet programs read ₹ and Devanagari correctly.
 */
export function toCsv(doc: ExportDocument): string {
  const { ordered } = numbering(doc);
  const header = ['number', 'signal_id', 'title', 'source', 'published_at', 'url', 'snippet', 'source_health_when_cited'];
  const rows = ordered.map(({ number, citation: c }) => [number, c.id, c.title, c.source_name ?? c.source_id, c.published_at, c.url, c.snippet, c.detail?.healthWhenCited ?? '']);
  return stringifyCsv([header, ...rows], { bom: true, escape_formulas: true, record_delimiter: 'windows' });
}

// ── HTML ──────────────────────────────────────────────────────────────────────────────
const safeMarked = new Marked({
  gfm: true,
  renderer: {
    // SECURITY: raw HTML in the service's markdown is shown as text, never as markup.
    html({ text }) {
      return escapeHtml(text);
    },
    link({ href, tokens }) {
      const inner = this.parser.parseInline(tokens);
      return SAFE_LINK.test(href) ? `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${inner}</a>` : inner;
    },
    image({ text }) {
      return escapeHtml(text);
    },
  },
});

export function toHtml(doc: ExportDocument): string {
  const { ordered, numberOf } = numbering(doc);
  const toBody = (markdown: string): string =>
    (safeMarked.parse(markdown, { async: false }) as string).replace(CITATION_MARKER, (_m, id: string) => {
      const n = numberOf.get(id)!;
      return `<sup class="cite"><a href="#source-${n}">[${n}]</a></sup>`;
    });
  // The key figures drawn (inline SVG, each point a link to its numbered source), right before
  // the table that reads every value out.
  const markdown = bodyMarkdown(doc);
  const series = drawableSeries(doc.meta.series);
  const tokens = series.length > 0 ? new Lexer({ gfm: true }).lex(markdown) : [];
  const slot = series.length > 0 ? chartSlot(tokens) : -1;
  let body: string;
  if (slot < 0) body = toBody(markdown);
  else {
    const split = tokens.slice(0, slot).reduce((length, token) => length + token.raw.length, 0);
    const charts = series
      .map((entry, index) => {
        const svg = chartSvg(entry, {
          linkOf: (id) => (numberOf.has(id) ? `#source-${numberOf.get(id)}` : null),
          sourceLabel: (id) => (numberOf.has(id) ? `[${numberOf.get(id)}]` : id),
        });
        return `<figure class="chart" data-testid="report-chart-${index + 1}">\n<figcaption>${escapeHtml(entry.title)}</figcaption>\n${svg}\n</figure>`;
      })
      .join('\n');
    body = `${toBody(markdown.slice(0, split))}\n${charts}\n${toBody(markdown.slice(split))}`;
  }
  const sources = ordered
    .map(({ number, citation: c }) => {
      const title = escapeHtml(c.title ?? c.id);
      const href = httpHref(c.url);
      const link = href ? `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${title}</a>` : title;
      return `<li id="source-${number}">${link} — ${escapeHtml(sourceLine(c, doc.timeZone))}${c.url ? ` <span class="url">${escapeHtml(c.url)}</span>` : ''} <span class="id">${escapeHtml(c.id)}</span></li>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
body{font:16px/1.55 Georgia,'Times New Roman',serif;color:#1b2230;max-width:44rem;margin:2rem auto;padding:0 1rem}
h1,h2,h3{font-family:system-ui,sans-serif;line-height:1.25}.meta{color:#5d6778;font:14px system-ui,sans-serif}
table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccd;padding:4px 8px;vertical-align:top}
figure.chart{margin:1rem 0}figure.chart figcaption{font:600 14px system-ui,sans-serif;margin-bottom:.3rem}figure.chart svg{max-width:100%;height:auto}figure.chart a:focus circle,figure.chart a:focus rect{stroke:#000;stroke-width:2}
sup.cite a{text-decoration:none;font:600 11px system-ui,sans-serif}.sources li{margin:.3rem 0}.id{color:#889;font:11px monospace}.url{display:none}
@media print{body{margin:0;max-width:none}a{color:inherit}.url{display:inline;color:#556;font-size:11px}h2{break-after:avoid}tr,li,figure.chart{break-inside:avoid}}
</style></head><body>
<h1>${escapeHtml(doc.title)}</h1>
<p class="meta">${escapeHtml(subtitleOf(doc))}</p>
${body}
<h2>Sources</h2>
<ol class="sources">
${sources}
</ol>
</body></html>
`;
}

// ── DOCX ──────────────────────────────────────────────────────────────────────────────
async function toDocx(doc: ExportDocument): Promise<Buffer> {
  const { ordered, numberOf } = numbering(doc);
  const runsToDocx = (runs: Run[]): Array<TextRun | ExternalHyperlink | FootnoteReferenceRun> =>
    runs.map((run) => {
      if (run.citation !== undefined) return new FootnoteReferenceRun(run.citation);
      const text = new TextRun({ text: run.text, bold: run.bold, italics: run.italic, font: run.code ? 'Consolas' : undefined, style: run.link ? 'Hyperlink' : undefined });
      return run.link ? new ExternalHyperlink({ link: run.link, children: [text] }) : text;
    });
  const blocks: Array<Paragraph | Table> = [
    new Paragraph({ text: doc.title, heading: HeadingLevel.TITLE }),
    new Paragraph({ children: [new TextRun({ text: subtitleOf(doc), italics: true, color: '5D6778' })] }),
  ];
  const headingLevels = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6];
  const tokens = new Lexer({ gfm: true }).lex(bodyMarkdown(doc));
  // The key figures drawn, as PNG images (rendered from the same SVG as the HTML's) with their
  // titles as alt text, right before the table that reads every value out.
  const series = drawableSeries(doc.meta.series);
  const slot = series.length > 0 ? chartSlot(tokens) : -1;
  const pushCharts = (): void => {
    for (const entry of series) {
      blocks.push(new Paragraph({ keepNext: true, children: [new TextRun({ text: entry.title, bold: true })] }));
      const description = `${entry.title}: ${entry.points.map((point) => `${point.x} ${point.value}`).join('; ')}. The table after the chart gives each value with its source.`;
      blocks.push(
        new Paragraph({
          children: [new ImageRun({ type: 'png', data: chartPng(chartSvg(entry)), transformation: { width: CHART_WIDTH, height: CHART_HEIGHT }, altText: { name: entry.title, title: entry.title, description } })],
        }),
      );
    }
  };
  for (const [index, token] of tokens.entries()) {
    if (index === slot) pushCharts();
    if (token.type === 'heading') {
      const heading = token as Tokens.Heading;
      blocks.push(new Paragraph({ heading: headingLevels[Math.min(5, heading.depth - 1)], children: runsToDocx(inlineRuns(heading.tokens, numberOf)) }));
    } else if (token.type === 'paragraph') {
      blocks.push(new Paragraph({ children: runsToDocx(inlineRuns((token as Tokens.Paragraph).tokens, numberOf)) }));
    } else if (token.type === 'list') {
      for (const item of (token as Tokens.List).items) {
        const inner = item.tokens.flatMap((t) => ('tokens' in t && Array.isArray(t.tokens) ? (t.tokens as Token[]) : [t]));
        blocks.push(new Paragraph({ bullet: { level: 0 }, children: runsToDocx(inlineRuns(inner, numberOf)) }));
      }
    } else if (token.type === 'table') {
      const table = token as Tokens.Table;
      const row = (cells: Tokens.TableCell[], header: boolean): TableRow =>
        new TableRow({
          tableHeader: header,
          children: cells.map((cell) => new TableCell({ children: [new Paragraph({ alignment: cell.align === 'right' ? AlignmentType.RIGHT : AlignmentType.LEFT, children: runsToDocx(inlineRuns(cell.tokens, numberOf, header ? { bold: true } : {})) })] })),
        });
      blocks.push(new Table({ width: { size: 100, type: WidthType.PERCENTAGE }, rows: [row(table.header, true), ...table.rows.map((cells) => row(cells, false))] }));
    } else if (token.type === 'code') {
      blocks.push(new Paragraph({ children: [new TextRun({ text: (token as Tokens.Code).text, font: 'Consolas' })] }));
    } else if (token.type === 'blockquote') {
      blocks.push(new Paragraph({ indent: { left: 720 }, children: runsToDocx(inlineRuns((token as Tokens.Blockquote).tokens.flatMap((t) => ('tokens' in t ? ((t.tokens as Token[]) ?? []) : [])), numberOf, { italic: true })) }));
    }
  }
  if (slot === tokens.length) pushCharts();
  blocks.push(new Paragraph({ text: 'Sources', heading: HeadingLevel.HEADING_1 }));
  for (const { number, citation: c } of ordered) {
    const children: Array<TextRun | ExternalHyperlink> = [new TextRun({ text: `${number}. ` })];
    children.push(httpHref(c.url) ? new ExternalHyperlink({ link: httpHref(c.url)!, children: [new TextRun({ text: c.title ?? c.id, style: 'Hyperlink' })] }) : new TextRun({ text: c.title ?? c.id }));
    children.push(new TextRun({ text: ` — ${sourceLine(c, doc.timeZone)}${c.url ? ` — ${c.url}` : ''}` }));
    blocks.push(new Paragraph({ children }));
  }
  const footnotes: Record<number, { children: Paragraph[] }> = {};
  for (const { number, citation: c } of ordered) {
    footnotes[number] = {
      children: [
        new Paragraph({
          children: [
            new TextRun({ text: `${c.title ?? c.id} — ${sourceLine(c, doc.timeZone)}. ` }),
            ...(httpHref(c.url) ? [new ExternalHyperlink({ link: httpHref(c.url)!, children: [new TextRun({ text: c.url!, style: 'Hyperlink' })] })] : []),
          ],
        }),
      ],
    };
  }
  const document = new Document({ creator: 'Clarity Desktop', title: doc.title, footnotes, sections: [{ children: blocks }] });
  return Packer.toBuffer(document);
}
