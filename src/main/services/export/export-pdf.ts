/**
 * The PDF export (pdfkit): one title, headings, paragraphs, bullets with a hanging indent,
 * tables drawn as real grids (header row, ruled cells, wrapped text, repeated header after a
 * page break), clickable citation numbers, a report's key figures drawn as vector charts before
 * their table, a sources section, and "Page n of N" on every page.
 */
import { existsSync } from 'node:fs';
import { Lexer, type Token, type Tokens } from 'marked';
import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import { httpHref } from '../../../shared/safe-href';
import { bodyMarkdown, inlineRuns, numbering, sourceLine, subtitleOf, type ExportDocument, type Run } from './export-runs';
import { chartSlot, chartSvg, CHART_HEIGHT, CHART_WIDTH, drawableSeries } from './report-charts';

/** A Unicode font where the system has one (₹ and — are not in PDF's standard fonts). */
const UNICODE_FONTS = [
  ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf'],
  ['/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf', '/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf'],
  ['/System/Library/Fonts/Supplemental/Arial Unicode.ttf', '/System/Library/Fonts/Supplemental/Arial Bold.ttf'],
  ['C:\\Windows\\Fonts\\arial.ttf', 'C:\\Windows\\Fonts\\arialbd.ttf'],
] as const;

const INK = '#1b2230';
const MUTED = '#5d6778';
const LINK = '#1f5fbf';
const RULE = '#b8c0cc';
const BODY_SIZE = 10.5;
const TABLE_SIZE = 9.5;
const CELL_PAD = 4;
const BULLET_INDENT = 16;

export async function toPdf(doc: ExportDocument): Promise<Buffer> {
  const { ordered, numberOf } = numbering(doc);
  const pdf = new PDFDocument({ size: 'A4', margin: 56, bufferPages: true, info: { Title: doc.title, Creator: 'Clarity Desktop' } });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => pdf.on('end', () => resolve(Buffer.concat(chunks))));
  const fonts = UNICODE_FONTS.find(([regular, bold]) => existsSync(regular) && existsSync(bold));
  const regular = fonts ? 'body' : 'Helvetica';
  const bold = fonts ? 'body-bold' : 'Helvetica-Bold';
  if (fonts) {
    pdf.registerFont('body', fonts[0]);
    pdf.registerFont('body-bold', fonts[1]);
  }
  // Without a Unicode font, keep the text readable in the standard one.
  const text = (value: string): string => (fonts ? value : value.replace(/₹/g, 'Rs ').replace(/[^\x20-\x7e\n—–…]/g, '?'));
  const urlOf = new Map(ordered.map(({ number, citation }) => [number, citation.url]));
  const left = pdf.page.margins.left;
  const contentWidth = pdf.page.width - pdf.page.margins.left - pdf.page.margins.right;
  const bottom = (): number => pdf.page.height - pdf.page.margins.bottom;

  /** Styled runs as one flowing paragraph from (x, y), wrapped at `width`. */
  const writeRuns = (runs: Run[], options: { size?: number; x?: number; width?: number } = {}): void => {
    const visible = runs.filter((run) => run.text || run.citation !== undefined);
    const x = options.x ?? left;
    const width = options.width ?? contentWidth;
    if (visible.length === 0) {
      pdf.text('', x, pdf.y, { width });
      return;
    }
    visible.forEach((run, i) => {
      const last = i === visible.length - 1;
      pdf.font(run.bold ? bold : regular).fontSize(options.size ?? BODY_SIZE);
      const common = { continued: !last, width, lineGap: 1.5 };
      const first = i === 0;
      if (run.citation !== undefined) {
        const value = `[${run.citation}]`;
        const opts = { ...common, link: httpHref(urlOf.get(run.citation)) ?? undefined, underline: false };
        pdf.fillColor(LINK);
        if (first) pdf.text(value, x, pdf.y, opts);
        else pdf.text(value, opts);
      } else {
        const opts = { ...common, link: run.link, underline: !!run.link };
        pdf.fillColor(run.link ? LINK : INK);
        if (first) pdf.text(text(run.text), x, pdf.y, opts);
        else pdf.text(text(run.text), opts);
      }
    });
    pdf.fillColor(INK);
    pdf.x = left;
  };

  /** A cell's text: inline markup flattened, citations as [n]. */
  const cellText = (tokens: Token[]): string => text(inlineRuns(tokens, numberOf).map((run) => (run.citation !== undefined ? `[${run.citation}]` : run.text)).join(''));

  const drawTable = (table: Tokens.Table): void => {
    const header = table.header.map((cell) => cellText(cell.tokens));
    const rows = table.rows.map((cells) => cells.map((cell) => cellText(cell.tokens)));
    const columns = header.length;
    // Auto layout, as browsers do: every column gets its longest word, the rest of the width
    // goes to the columns with the most text (the Signal column), so figures never wrap.
    pdf.font(bold).fontSize(TABLE_SIZE);
    const cells = (c: number): string[] => [header[c]!, ...rows.map((row) => row[c] ?? '')];
    const longestWord = (value: string): number => Math.max(0, ...value.split(/\s+/).map((word) => pdf.widthOfString(word)));
    const natural = header.map((_, c) => Math.max(...cells(c).map((value) => pdf.widthOfString(value))) + 2 * CELL_PAD + 1);
    // Short columns (dates, figures) keep their whole width: they never wrap.
    const least = header.map((_, c) => (natural[c]! <= contentWidth * 0.16 ? natural[c]! : Math.max(...cells(c).map(longestWord)) + 2 * CELL_PAD + 1));
    const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
    let widths: number[];
    if (sum(natural) <= contentWidth) widths = natural;
    else if (sum(least) >= contentWidth) widths = least.map((w) => (w / sum(least)) * contentWidth);
    else {
      const slack = natural.map((n, c) => n - least[c]!);
      widths = least.map((w, c) => w + (slack[c]! / sum(slack)) * (contentWidth - sum(least)));
    }
    const xs = widths.map((_, c) => left + widths.slice(0, c).reduce((a, b) => a + b, 0));
    const tableWidth = widths.reduce((a, b) => a + b, 0);
    const heightOf = (values: string[], isHeader: boolean): number => {
      pdf.font(isHeader ? bold : regular).fontSize(TABLE_SIZE);
      return Math.max(...values.map((value, c) => pdf.heightOfString(value || ' ', { width: widths[c]! - 2 * CELL_PAD }))) + 2 * CELL_PAD;
    };
    const drawRow = (values: string[], isHeader: boolean): void => {
      const height = heightOf(values, isHeader);
      if (pdf.y + height > bottom()) {
        pdf.addPage();
        if (!isHeader) drawRow(header, true);
      }
      const y = pdf.y;
      if (isHeader) pdf.rect(left, y, tableWidth, height).fill('#eef1f5');
      pdf.lineWidth(0.6).strokeColor(RULE);
      values.forEach((value, c) => {
        pdf.rect(xs[c]!, y, widths[c]!, height).stroke();
        const align = table.align[c] === 'right' ? 'right' : table.align[c] === 'center' ? 'center' : 'left';
        pdf.font(isHeader ? bold : regular).fontSize(TABLE_SIZE).fillColor(INK).text(value, xs[c]! + CELL_PAD, y + CELL_PAD, { width: widths[c]! - 2 * CELL_PAD, align });
      });
      pdf.x = left;
      pdf.y = y + height;
    };
    drawRow(header, true);
    for (const row of rows) drawRow(Array.from({ length: columns }, (_, c) => row[c] ?? ''), false);
    pdf.moveDown(0.8);
  };

  const drawList = (list: Tokens.List, depth: number): void => {
    const indent = depth * BULLET_INDENT;
    list.items.forEach((item, index) => {
      const marker = list.ordered ? `${(typeof list.start === 'number' ? list.start : 1) + index}.` : '•';
      const inline = item.tokens.filter((t) => t.type !== 'list').flatMap((t) => ('tokens' in t && Array.isArray(t.tokens) ? (t.tokens as Token[]) : [t]));
      if (pdf.y + 14 > bottom()) pdf.addPage();
      const y = pdf.y;
      pdf.font(regular).fontSize(BODY_SIZE).fillColor(INK).text(marker, left + indent, y, { width: BULLET_INDENT, lineBreak: false });
      // Hanging indent: every line of the item starts right of the bullet.
      pdf.y = y;
      writeRuns(inlineRuns(inline, numberOf), { x: left + indent + BULLET_INDENT, width: contentWidth - indent - BULLET_INDENT });
      pdf.moveDown(0.25);
      for (const nested of item.tokens.filter((t): t is Tokens.List => t.type === 'list')) drawList(nested, depth + 1);
    });
  };

  pdf.font(bold).fontSize(18).fillColor(INK).text(text(doc.title));
  pdf.font(regular).fontSize(9).fillColor(MUTED).text(subtitleOf(doc)).fillColor(INK);
  pdf.moveDown();
  // The key figures drawn as vectors (the same SVG as the HTML's), right before the table that
  // reads every value out; each chart kept whole on one page.
  const tokens = new Lexer({ gfm: true }).lex(bodyMarkdown(doc));
  const series = drawableSeries(doc.meta.series);
  const slot = series.length > 0 ? chartSlot(tokens) : -1;
  const drawCharts = (): void => {
    const scale = Math.min(1, contentWidth / CHART_WIDTH);
    for (const entry of series) {
      const height = CHART_HEIGHT * scale;
      if (pdf.y + height + 24 > bottom()) pdf.addPage();
      pdf.font(bold).fontSize(10).fillColor(INK).text(text(entry.title), left, pdf.y, { width: contentWidth });
      pdf.moveDown(0.2);
      const top = pdf.y;
      SVGtoPDF(pdf, chartSvg(entry, { sourceLabel: (id) => (numberOf.has(id) ? `[${numberOf.get(id)}]` : id) }), left, top, {
        width: CHART_WIDTH * scale,
        height,
        assumePt: true,
        fontCallback: (_family, isBold) => (isBold ? bold : regular),
        warningCallback: () => undefined,
      });
      pdf.x = left;
      pdf.y = top + height;
      pdf.moveDown(0.6);
    }
  };
  for (const [index, token] of tokens.entries()) {
    if (index === slot) drawCharts();
    if (token.type === 'heading') {
      const heading = token as Tokens.Heading;
      if (pdf.y + 60 > bottom()) pdf.addPage(); // keep a heading with what follows it
      pdf.moveDown(0.4);
      writeRuns(inlineRuns(heading.tokens, numberOf, { bold: true }), { size: heading.depth <= 1 ? 15 : heading.depth === 2 ? 13 : 11.5 });
      pdf.moveDown(0.3);
    } else if (token.type === 'paragraph') {
      writeRuns(inlineRuns((token as Tokens.Paragraph).tokens, numberOf));
      pdf.moveDown(0.6);
    } else if (token.type === 'list') {
      drawList(token as Tokens.List, 0);
      pdf.moveDown(0.4);
    } else if (token.type === 'table') {
      drawTable(token as Tokens.Table);
    } else if (token.type === 'code') {
      pdf.font('Courier').fontSize(9).text(text((token as Tokens.Code).text), left, pdf.y, { width: contentWidth });
      pdf.moveDown(0.5);
    } else if (token.type === 'blockquote') {
      const inner = (token as Tokens.Blockquote).tokens.flatMap((t) => ('tokens' in t && Array.isArray(t.tokens) ? (t.tokens as Token[]) : []));
      writeRuns(inlineRuns(inner, numberOf, { italic: true }), { x: left + BULLET_INDENT, width: contentWidth - BULLET_INDENT });
      pdf.moveDown(0.5);
    }
  }
  if (slot === tokens.length) drawCharts();
  pdf.moveDown();
  if (pdf.y + 60 > bottom()) pdf.addPage();
  pdf.font(bold).fontSize(13).fillColor(INK).text('Sources', left, pdf.y);
  pdf.moveDown(0.3);
  for (const { number, citation: c } of ordered) {
    const safeUrl = httpHref(c.url) ?? undefined;
    const y = pdf.y;
    pdf.font(regular).fontSize(9.5).fillColor(INK).text(`${number}.`, left, y, { width: 20, lineBreak: false });
    pdf.y = y;
    const runs: Run[] = [{ text: c.title ?? c.id, link: safeUrl }, { text: ` — ${sourceLine(c, doc.timeZone)}` }, ...(safeUrl ? [{ text: ` ${safeUrl}`, link: safeUrl }] : [])];
    writeRuns(runs, { size: 9.5, x: left + 20, width: contentWidth - 20 });
    pdf.moveDown(0.2);
  }

  // Page numbers, written once every page exists.
  const range = pdf.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i += 1) {
    pdf.switchToPage(i);
    const margin = pdf.page.margins.bottom;
    pdf.page.margins.bottom = 0; // the footer sits in the margin; no new page for it
    pdf.font(regular).fontSize(8.5).fillColor(MUTED).text(`Page ${i - range.start + 1} of ${range.count}`, left, pdf.page.height - margin / 2 - 4, { width: contentWidth, align: 'center', lineBreak: false });
    pdf.page.margins.bottom = margin;
  }
  pdf.end();
  return done;
}
