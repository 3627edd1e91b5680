/**
 * A fetched item becomes a signal in the shape the app already cites: id from the canonical URL,
 * readable text, dates (with where they came from), entities from the gazetteer, a type from the
 * existing list, and metrics with their units.
 */
import type { CorpusSignal, SignalType } from '../world/signal-types';
import { createHash } from 'node:crypto';
import { canonicalUrl, signalIdFor } from './canonical-url';
import { toPlainLead, toPlainText, withoutOpeningHeadings } from './plain-text';
import { findEntities } from './gazetteer';

export interface FeedSignal extends CorpusSignal {
  canonical_url: string;
  published_at_source: 'item' | 'fetch';
  first_seen_at: string;
  updated_at: string | null;
  /** Who wrote it, when the source says so (a feed's author, an article's byline). */
  byline?: string | null;
  /** Where the signal came from: a fetched source (the sample corpus has no such field). */
  origin: 'feed';
  /** Other signals carrying the same story (near-duplicates from other sources). */
  corroborated_by: string[];
  confidence: number;
}

export interface ExtractInput {
  sourceId: string;
  /** The item's own link; null when it has none (its id then comes from its guid or content). */
  url: string | null;
  /** The feed's guid / atom:id, when it gives one. */
  guid?: string | null;
  /** Where an item without a link is read: the feed's site (or the feed itself). */
  pageUrl?: string | null;
  /** The feed's own URL: a guid is unique within its feed, so its id is scoped by it. */
  feedUrl?: string | null;
  title: string;
  text: string;
  summary?: string;
  /** The summary's lines that were headings in the feed's markup (already plain text). */
  summaryHeadings?: string[];
  published: string | null;
  updated?: string | null;
  author?: string | null;
  categories?: string[];
  enclosures?: string[];
  fetchedAt: Date;
}

/** A date too far ahead is a feed's mistake: it is clamped to the fetch time. */
const FUTURE_TOLERANCE_MS = 10 * 60_000;

/** Why an item would not become a signal, in words; null when it would. */
export function unkeptReason(input: ExtractInput): string | null {
  const linked = input.url ? canonicalUrl(input.url) : null;
  if (!linked && !(input.pageUrl && canonicalUrl(input.pageUrl))) return input.url ? `Its link (${input.url.slice(0, 200)}) is not a web address.` : 'It has no link and the feed has no address to cite it by.';
  if (!toPlainText(input.title) && !toPlainText(input.text) && !linked) return 'It has no title, no text and no link.';
  return null;
}

export function extractSignal(input: ExtractInput): FeedSignal | null {
  if (unkeptReason(input) !== null) return null;
  const linked = input.url ? canonicalUrl(input.url) : null;
  const textHeadings: string[] = [];
  const text = toPlainText(input.text, textHeadings);
  const title = toPlainText(input.title) || text.slice(0, 120) || linked || '';
  if (!title) return null;
  // An item without a link keeps its place: its id from its guid, else its content; its url is
  // null (it is cited by its source and date), and its canonical key is the feed's page with a
  // fragment naming it, so two such items never share one.
  const key = linked ?? `${canonicalUrl(input.pageUrl!)}#${input.guid ? `guid=${encodeURIComponent(input.guid.trim())}` : `item=${createHash('sha256').update(`${title}\n${text}`).digest('hex').slice(0, 16)}`}`;
  const canonical = linked ?? key;
  // The summary is a lead: an opening heading inside the item's text is left to the body.
  const summary = summarise(withoutOpeningHeadings(toPlainLead(input.summary ?? ''), input.summaryHeadings ?? []) || withoutOpeningHeadings(text, textHeadings), title);
  const parsed = input.published ? Date.parse(input.published) : Number.NaN;
  const fromItem = Number.isFinite(parsed) && parsed <= input.fetchedAt.getTime() + FUTURE_TOLERANCE_MS && parsed > Date.UTC(1995, 0, 1);
  const publishedAt = new Date(fromItem ? parsed : input.fetchedAt.getTime()).toISOString();
  const id = signalIdFor(linked ?? (input.guid ? `guid:${input.feedUrl ?? input.sourceId}:${input.guid.trim()}` : key));
  const whole = `${title}. ${summary} ${text}`;
  const type = classify(`${title}. ${summary}`);
  return {
    id,
    slug: `${slugify(title)}-${id.slice(4, 10)}`,
    title: title.slice(0, 300),
    summary,
    body: text.slice(0, 20_000) || summary,
    source_id: input.sourceId,
    // Cited without tracking parameters or fragment; null when the item has no link of its own.
    url: linked,
    canonical_url: canonical,
    published_at: publishedAt,
    published_at_source: fromItem ? 'item' : 'fetch',
    first_seen_at: input.fetchedAt.toISOString(),
    updated_at: null,
    type,
    entities: findEntities(whole),
    metrics: extractMetrics(whole, type),
    origin: 'feed',
    corroborated_by: [],
    confidence: 0.5,
    ...(input.author ? { byline: toPlainText(input.author).replace(/\s+/g, ' ').slice(0, 200) } : {}),
  };
}

function summarise(text: string, title: string): string {
  // The title is not repeated, nor the full stop a heading got when it became a sentence.
  const body = text.startsWith(title) ? text.slice(title.length).replace(/^[\s.:;,!?|—–-]+/u, '') : text;
  if (body.length <= 280) return body;
  const cut = body.slice(0, 280);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('। '));
  return end > 120 ? cut.slice(0, end + 1) : `${cut.slice(0, cut.lastIndexOf(' '))}…`;
}

const TYPE_RULES: Array<[SignalType, RegExp]> = [
  ['closure', /\b(clos(e|es|ed|ing|ure)|shut(s|ting)?( down)?|exits?|wind(s|ing)? down)\b/i],
  ['funding', /\b(rais(e|es|ed|ing)|funding|series [a-f]\b|invest(s|ment|ed)|valuation|ipo)\b/i],
  ['results', /\b(results|quarter(ly)?|q[1-4]\b|revenue|net profit|net loss|ebitda|earnings)\b/i],
  ['store_opening', /\b(open(s|ed|ing)?|launch(es|ed)?|inaugurat\w*)\b.*\b(stores?|outlets?|showrooms?|dark stores?)\b|\bnew (stores?|outlets?)\b/i],
  ['expansion', /\b(expan(d|ds|ded|sion)|enters?|entry into|foray|roll(s|ed)? out)\b/i],
  ['partnership', /\b(partner(s|ship|ed)?|tie-?up|collaborat\w*|alliance|joins hands)\b/i],
  ['hiring', /\b(hir(e|es|ed|ing)|recruit\w*|jobs|headcount|layoffs?)\b/i],
  ['pricing', /\b(price(s|d)?|pricing|discount(s|ed)?|cuts? rates?|tariff)\b/i],
  ['regulation', /\b(regulat\w*|rbi|sebi|fdi|cci|gst|ministry|government|notif\w*|policy|rules?|circular|dpiit)\b/i],
  ['app_rank', /\b(app (store|rank\w*)|downloads|top charts?|play store)\b/i],
];

export function classify(text: string): SignalType {
  for (const [type, pattern] of TYPE_RULES) if (pattern.test(text)) return type;
  return 'market_update';
}

const NUMBER = String.raw`(\d{1,3}(?:,\d{2,3})+|\d+(?:\.\d+)?)`;

/** Figures with units: ₹ crore and lakh (kept in crore), store counts, percentages and growth. */
export function extractMetrics(text: string, type: SignalType): Record<string, number> {
  const metrics: Record<string, number> = {};
  const money = new RegExp(String.raw`(?:₹|rs\.?|inr)\s?${NUMBER}\s*(crore|cr\b|lakh|lac\b|million|billion|bn\b)?`, 'giu');
  for (const match of text.matchAll(money)) {
    const value = toNumber(match[1]!);
    const unit = (match[2] ?? '').toLowerCase();
    const crore = unit.startsWith('cr') ? value : unit === 'lakh' || unit === 'lac' ? value / 100 : unit === 'million' ? value / 10 : unit === 'billion' || unit === 'bn' ? value * 100 : value / 1e7;
    const key = type === 'results' ? 'revenue_cr' : type === 'funding' ? 'amount_cr' : 'amount_cr';
    if (metrics[key] === undefined) metrics[key] = round(crore);
  }
  const stores = new RegExp(String.raw`${NUMBER}\s+(?:new\s+)?(?:dark\s+)?(?:stores|outlets|showrooms|branches)`, 'giu');
  for (const match of text.matchAll(stores)) {
    const before = text.slice(Math.max(0, (match.index ?? 0) - 40), match.index).toLowerCase();
    const key = /clos|shut/.test(before) ? 'stores_closed' : /open|add|launch|new/.test(before + match[0].toLowerCase()) ? 'stores_opened' : 'store_count';
    if (metrics[key] === undefined) metrics[key] = toNumber(match[1]!);
  }
  const percent = new RegExp(String.raw`${NUMBER}\s?(?:%|per\s?cent\b)`, 'giu');
  for (const match of text.matchAll(percent)) {
    const around = text.slice(Math.max(0, (match.index ?? 0) - 50), (match.index ?? 0) + match[0].length + 20).toLowerCase();
    const key = /grow|grew|rose|rise|up |jump|increase|yoy|year-on-year/.test(around) ? 'growth_yoy_pct' : /share/.test(around) ? 'share_pct' : /margin/.test(around) ? 'ebitda_margin_pct' : 'pct';
    if (metrics[key] === undefined) metrics[key] = toNumber(match[1]!);
  }
  return metrics;
}

function toNumber(text: string): number {
  return Number(text.replace(/,/g, ''));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function slugify(text: string): string {
  return text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'signal';
}
