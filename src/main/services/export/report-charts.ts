/**
 * A report's key-figures series drawn for the exports (issue 46 item 7): Observable Plot renders
 * each series as SVG over linkedom's document (no browser); the HTML export inlines that SVG, the
 * PDF draws it as vectors (svg-to-pdfkit), the DOCX holds it as a PNG that resvg renders from the
 * same SVG. Every export keeps the figures table right after the charts for screen readers.
 */
import { existsSync } from 'node:fs';
import * as Plot from '@observablehq/plot';
import { Resvg } from '@resvg/resvg-js';
import { parseHTML } from 'linkedom';
import type { Token } from 'marked';
import type { ReportSeries } from '../../../shared/research';
import { formatNumber } from '../../../shared/format';

export const CHART_WIDTH = 480;
export const CHART_HEIGHT = 240;
const INK = '#1b2230';
const ACCENT = '#1f5fbf';
const SVG_NS = 'http://www.w3.org/2000/svg';

/** The fonts a chart names, first the ones the PDF export embeds (PNG rendering reads them from disk). */
const CHART_FONTS = [
  ['DejaVu Sans', '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'],
  ['Liberation Sans', '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf'],
  ['Arial', '/System/Library/Fonts/Supplemental/Arial.ttf'],
  ['Arial', 'C:\\Windows\\Fonts\\arial.ttf'],
] as const;
const FONT_FAMILY = `system-ui, ${[...new Set(CHART_FONTS.map(([family]) => `'${family}'`))].join(', ')}, sans-serif`;

export interface ChartOptions {
  /** Where a point links to (the HTML export's numbered source); null for no link. */
  linkOf?: (citation: string) => string | null;
  /** How a point's source is named in its tooltip, e.g. "[3]"; the signal id by default. */
  sourceLabel?: (citation: string) => string;
}

const shortLabel = (value: string): string => (value.length > 14 ? `${value.slice(0, 13)}…` : value);

/** One series as a standalone SVG document (with its namespace, so a file or resvg reads it). */
export function chartSvg(series: ReportSeries, options: ChartOptions = {}): string {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const points = series.points;
  const tip = (point: ReportSeries['points'][number]): string =>
    `${point.x}: ${formatNumber(point.value, { maxFractionDigits: 2 })} (source ${options.sourceLabel ? options.sourceLabel(point.citation) : point.citation})`;
  const href = (point: ReportSeries['points'][number]): string | null => options.linkOf?.(point.citation) ?? null;
  const crowded = points.length > 5;
  const marks =
    series.kind === 'over_time'
      ? [
          Plot.lineY(points, { x: 'x', y: 'value', stroke: ACCENT, strokeWidth: 2 }),
          Plot.dot(points, { x: 'x', y: 'value', r: 4, fill: ACCENT, title: tip, href, ariaLabel: tip }),
        ]
      : [Plot.barY(points, { x: 'x', y: 'value', fill: ACCENT, title: tip, href, ariaLabel: tip }), Plot.ruleY([0])];
  const svg = Plot.plot({
    document: document as unknown as Plot.PlotOptions['document'],
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    marginLeft: 56,
    marginBottom: crowded ? 64 : 36,
    style: { color: INK, background: 'white', fontFamily: FONT_FAMILY, fontSize: '11px' },
    x: { type: series.kind === 'over_time' ? 'point' : 'band', domain: points.map((p) => p.x), label: null, tickFormat: shortLabel, tickRotate: crowded ? -30 : 0, padding: series.kind === 'over_time' ? 0.3 : 0.2 },
    y: { grid: true, label: null, nice: true, zero: series.kind === 'by_subject', tickFormat: (value: number) => formatNumber(value, { maxFractionDigits: 1 }) },
    marks,
  }) as unknown as SvgElement;
  svg.setAttribute('xmlns', SVG_NS);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${series.title}: ${points.length} points; the table after the chart gives each value with its source`);
  const title = document.createElementNS(SVG_NS, 'title') as unknown as SvgElement;
  title.textContent = series.title;
  svg.insertBefore(title, svg.firstChild);
  return toXml(svg);
}

/**
 * The SVG as XML (linkedom writes HTML, which leaves `<` and `&` raw in attribute values; SVG
 * files, resvg and svg-to-pdfkit read XML). Every text and attribute value is escaped here, so
 * the service's labels stay text wherever the chart goes.
 */
function toXml(node: SvgElement): string {
  if (node.nodeType === 3) return escapeXml(node.textContent ?? '');
  if (node.nodeType !== 1) return '';
  const attributes = Array.from(node.attributes, (attribute) => ` ${attribute.name}="${escapeXml(attribute.value)}"`).join('');
  const children = Array.from(node.childNodes, toXml).join('');
  return `<${node.localName}${attributes}>${children}</${node.localName}>`;
}

/** What the chart reads of linkedom's nodes (main has no DOM types). */
interface SvgElement {
  nodeType: number;
  localName: string;
  textContent: string | null;
  attributes: ArrayLike<{ name: string; value: string }>;
  childNodes: ArrayLike<SvgElement>;
  firstChild: SvgElement | null;
  setAttribute(name: string, value: string): void;
  insertBefore(node: SvgElement, before: SvgElement | null): void;
}

const escapeXml = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The chart as a PNG (twice the size, for print), for DOCX. */
export function chartPng(svg: string): Buffer {
  const files = CHART_FONTS.filter(([, path]) => existsSync(path));
  const resvg = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: files.length === 0, fontFiles: files.map(([, path]) => path), defaultFontFamily: files[0]?.[0] ?? 'Arial', sansSerifFamily: files[0]?.[0] ?? 'Arial' },
  });
  return resvg.render().asPng();
}

/**
 * Where the charts go among the report's markdown tokens: right before the key-figures
 * section's table (so the table that reads every value out stays beside them), else at the end
 * of that section; -1 when the report has no such section.
 */
export function chartSlot(tokens: Token[]): number {
  const start = tokens.findIndex((token) => token.type === 'heading' && /^key figures\b/i.test((token as { text: string }).text.trim()));
  if (start < 0) return -1;
  const depth = (tokens[start] as { depth: number }).depth;
  for (let index = start + 1; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    if (token.type === 'table') return index;
    if (token.type === 'heading' && (token as { depth: number }).depth <= depth) return index;
  }
  return tokens.length;
}

/** The series a document carries (reports only), each with at least two points to draw. */
export function drawableSeries(series: ReportSeries[] | undefined): ReportSeries[] {
  return (series ?? []).filter((entry) => entry.points.length >= 2);
}
