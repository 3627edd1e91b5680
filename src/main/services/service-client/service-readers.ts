/**
 * The tolerant reader (issue #14): turns what a Retail Signal service sent into what the app
 * works with, reading only what the interface promises and accepting every variant it allows.
 * Unknown fields are kept; a missing promised field is named in the error, so "could not be
 * read" always says what was missing. See docs/compatibility.md for the variants accepted.
 */
import type { HealthOracle, HealthSource, HealthStats, ReadHealthSnapshot, ShownHealth } from '../../../shared/health';
import { normalizeConfidence } from '../../../shared/confidence';
import { z } from 'zod';
import { ReportChangesSchema, ReportSeriesSchema, ReportVerificationSchema, type ReportChanges, type ReportSeries } from '../../../shared/research';
type ReportVerification = z.infer<typeof ReportVerificationSchema>;

export type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

const good = <T>(value: T): Read<T> => ({ ok: true, value });
const bad = (problem: string): Read<never> => ({ ok: false, problem });

type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string, or a number written as one (ids and session ids are opaque either way). */
export function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** A finite number, or a numeric string ("12", "0.4"). */
export function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return null;
}

/** The first field present among `names` (services name the same thing differently). */
function pick(record: Json, names: readonly string[]): unknown {
  for (const name of names) if (record[name] !== undefined && record[name] !== null) return record[name];
  return undefined;
}

// ── Ask (JSON) ────────────────────────────────────────────────────────────────────────────

export interface ReadAnswer {
  content: string;
  citations: string[];
  /** In [0,1], or null when the service's value cannot be read (shown as unknown). */
  confidence: number | null;
  sessionId: string | null;
  sessionSlug: string | null;
}

/** A citation given as an id, or as an object carrying one. */
export function citationId(value: unknown): string | null {
  if (isRecord(value)) return asText(value.id);
  return asText(value);
}

export function readAnswer(body: unknown): Read<ReadAnswer> {
  if (!isRecord(body)) return bad('The answer is not a JSON object.');
  const content = body.content;
  if (typeof content !== 'string') return bad('The answer has no "content" text.');
  const citations = Array.isArray(body.citations) ? body.citations.map(citationId).filter((id): id is string => id !== null) : [];
  return good({
    content,
    citations,
    confidence: normalizeConfidence(body.confidence),
    sessionId: asText(body.session_id),
    sessionSlug: asText(body.session_slug),
  });
}

// ── Health snapshot ───────────────────────────────────────────────────────────────────────

const HEALTH_WORDS: Record<string, Exclude<ShownHealth, 'unknown'>> = {
  healthy: 'healthy', ok: 'healthy', up: 'healthy', green: 'healthy', good: 'healthy', operational: 'healthy', active: 'healthy', live: 'healthy', nominal: 'healthy', fine: 'healthy',
  degraded: 'degraded', warn: 'degraded', warning: 'degraded', yellow: 'degraded', amber: 'degraded', slow: 'degraded', lagging: 'degraded', delayed: 'degraded', stale: 'degraded', partial: 'degraded', impaired: 'degraded',
  down: 'down', red: 'down', error: 'down', failed: 'down', failing: 'down', offline: 'down', outage: 'down', dead: 'down', unhealthy: 'down', broken: 'down', unreachable: 'down',
};

/** A health word (any case, `_`/`-` as spaces) placed among the three, or `unknown`. */
export function readHealthWord(value: unknown): ShownHealth {
  if (typeof value === 'boolean') return value ? 'healthy' : 'down';
  const word = asText(value)?.trim().toLowerCase().replace(/[_-]+/g, ' ');
  return (word && HEALTH_WORDS[word]) || 'unknown';
}

/** A cadence as the table shows it: strings as sent; a number read as seconds ("every 15 min"). */
export function readCadence(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    if (value % 86_400 === 0) return `every ${value / 86_400} d`;
    if (value % 3_600 === 0) return `every ${value / 3_600} h`;
    if (value % 60 === 0) return `every ${value / 60} min`;
    return `every ${value} s`;
  }
  if (isRecord(value)) {
    const inner = pick(value, ['label', 'every', 'interval', 'seconds', 'value']);
    return inner === undefined ? JSON.stringify(value) : readCadence(inner);
  }
  return null;
}

const STAT_NAMES = {
  sources_total: ['sources_total', 'total_sources', 'sources', 'total', 'count', 'roster', 'roster_count', 'sourcesTotal'],
  healthy: ['healthy', 'ok', 'up', 'healthy_sources', 'healthy_count'],
  degraded: ['degraded', 'warning', 'degraded_sources', 'degraded_count'],
  down: ['down', 'failing', 'unhealthy', 'down_sources', 'down_count'],
  items_per_hour: ['items_per_hour', 'itemsPerHour', 'items_hour', 'per_hour', 'items_1h', 'hourly_items', 'throughput_per_hour'],
  signals_24h: ['signals_24h', 'signals24h', 'signals_last_24h', 'signals_last_day', 'signals_day', 'signals'],
} as const;

const MISS_RATE_NAMES = ['miss_rate', 'missRate', 'miss_rate_pct', 'miss_pct', 'miss', 'rate', 'value'];

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** docs/decisions/design.md §3: the source list is `sources`, else the first array of objects in the snapshot. */
function findSourceList(body: Json): unknown[] | null {
  if (Array.isArray(body.sources)) return body.sources;
  const list = Object.values(body).find((value) => Array.isArray(value) && value.length > 0 && isRecord(value[0]));
  return (list as unknown[] | undefined) ?? (Object.values(body).find(Array.isArray) as unknown[] | undefined) ?? null;
}

function readSource(entry: unknown, index: number): Read<HealthSource> {
  if (!isRecord(entry)) return bad(`source ${index + 1} is not an object`);
  const missing: string[] = [];
  const rawHealth = pick(entry, ['health', 'status', 'state']);
  if (rawHealth === undefined) missing.push('health');
  const cadence = readCadence(pick(entry, ['cadence', 'interval', 'frequency']));
  if (cadence === null) missing.push('cadence');
  const items = asNumber(pick(entry, ['items_24h', 'items24h', 'items_last_24h', 'items']));
  if (items === null) missing.push('items_24h');
  const rawName = asText(pick(entry, ['name', 'title', 'label']));
  const rawId = asText(pick(entry, ['id', 'source_id', 'key', 'slug']));
  const label = rawName ?? rawId ?? `source ${index + 1}`;
  if (missing.length > 0) return bad(`source ${index + 1} ("${label}") has no ${missing.join(', ')}`);
  const health = readHealthWord(rawHealth);
  const reported = asText(rawHealth);
  return good({
    ...entry,
    id: rawId ?? (rawName ? `name:${slug(rawName) || index}` : `source-${index + 1}`),
    name: label,
    kind: asText(pick(entry, ['kind', 'type', 'category'])) ?? 'unknown',
    health,
    ...(health === 'unknown' || (reported !== null && reported !== health) ? { health_reported: reported ?? JSON.stringify(rawHealth) } : {}),
    cadence: cadence!,
    items_24h: items!,
    last_item_at: asText(pick(entry, ['last_item_at', 'lastItemAt', 'last_seen', 'last_item'])),
  });
}

/**
 * The interface promises `stats`, `oracle` with a miss-rate, and a source list with health,
 * cadence and items_24h per entry. Stat names it does not recognise are computed from the list.
 */
export function readHealthSnapshot(body: unknown): Read<ReadHealthSnapshot> {
  if (!isRecord(body)) return bad('The health snapshot is not a JSON object.');
  const problems: string[] = [];
  if (!isRecord(body.stats)) problems.push('it has no "stats" object');
  let missRate: number | null = null;
  if (!isRecord(body.oracle)) problems.push('it has no "oracle" object');
  else {
    const raw = pick(body.oracle, MISS_RATE_NAMES);
    missRate = asNumber(raw) ?? (isRecord(raw) ? asNumber(pick(raw, ['value', 'rate'])) : null);
    if (missRate === null) missRate = Object.values(body.oracle).map(asNumber).find((n) => n !== null) ?? null;
    if (missRate === null) problems.push('its "oracle" has no miss-rate');
    else if (missRate > 1 && missRate <= 100) missRate /= 100;
  }
  const list = findSourceList(body);
  if (!list) problems.push('it has no source list');
  const sources: HealthSource[] = [];
  for (const [index, entry] of (list ?? []).entries()) {
    const read = readSource(entry, index);
    if (!read.ok) {
      problems.push(read.problem);
      break;
    }
    sources.push(read.value);
  }
  if (problems.length > 0) return bad(`The health snapshot could not be read: ${problems.join('; ')}.`);
  // Ids must be unique for history and selection: a repeated one gets its position appended.
  const seen = new Set<string>();
  for (const [index, source] of sources.entries()) {
    if (seen.has(source.id)) source.id = `${source.id}#${index + 1}`;
    seen.add(source.id);
  }
  const rawStats = body.stats as Json;
  const count = (health: ShownHealth): number => sources.filter((s) => s.health === health).length;
  const itemsTotal = sources.reduce((sum, s) => sum + s.items_24h, 0);
  const stat = (key: keyof typeof STAT_NAMES, fallback: number): number => asNumber(pick(rawStats, STAT_NAMES[key])) ?? fallback;
  const stats: HealthStats = {
    ...rawStats,
    sources_total: stat('sources_total', sources.length),
    healthy: stat('healthy', count('healthy')),
    degraded: stat('degraded', count('degraded')),
    down: stat('down', count('down')),
    items_per_hour: stat('items_per_hour', Math.round(itemsTotal / 24)),
    signals_24h: stat('signals_24h', itemsTotal),
  };
  const rawOracle = body.oracle as Json;
  const oracle: HealthOracle = {
    ...rawOracle,
    miss_rate: missRate!,
    window: asText(pick(rawOracle, ['window', 'period'])),
    updated_at: asText(pick(rawOracle, ['updated_at', 'updatedAt', 'as_of', 'at'])),
  };
  const rule = asText(body.health_rule);
  return good({ generated_at: asText(pick(body, ['generated_at', 'generatedAt', 'as_of', 'updated_at', 'timestamp'])), stats, oracle, sources, ...(rule && rule.length <= 1_000 ? { health_rule: rule } : {}) });
}

// ── Research ──────────────────────────────────────────────────────────────────────────────

export type RemoteResearchState = 'queued' | 'running' | 'completed' | 'failed';

const RESEARCH_WORDS: Record<string, RemoteResearchState> = {
  queued: 'queued', pending: 'queued', waiting: 'queued', accepted: 'queued', scheduled: 'queued', created: 'queued', submitted: 'queued',
  running: 'running', in_progress: 'running', inprogress: 'running', processing: 'running', started: 'running', working: 'running', active: 'running', generating: 'running',
  completed: 'completed', complete: 'completed', done: 'completed', succeeded: 'completed', success: 'completed', finished: 'completed', ready: 'completed',
  failed: 'failed', failure: 'failed', error: 'failed', errored: 'failed', cancelled: 'failed', canceled: 'failed', expired: 'failed', rejected: 'failed',
};

export function readResearchState(value: unknown): RemoteResearchState | null {
  const word = asText(value)?.trim().toLowerCase().replace(/[\s-]+/g, '_');
  return (word && RESEARCH_WORDS[word]) || null;
}

export interface ReadResearchStatus {
  state: RemoteResearchState;
  /** The service's own word, shown while the run is polled. */
  reported: string;
  id: string | null;
  reportUrl: string | null;
  statusUrl: string | null;
  citationCount: number | null;
  costUsd: number | null;
  error: string | null;
  /** A report carried inline (some services put the markdown in the status itself). */
  inlineReport: ReadReport | null;
}

/** A research start or poll response; `status` is the one thing it must carry. */
export function readResearchStatus(body: unknown): Read<ReadResearchStatus> {
  if (!isRecord(body)) return bad('The research status is not a JSON object.');
  const raw = pick(body, ['status', 'state']);
  if (raw === undefined) return bad('The research status has no "status".');
  const state = readResearchState(raw);
  if (!state) return bad(`The service reported a research status the app cannot read ("${String(asText(raw) ?? JSON.stringify(raw)).slice(0, 60)}").`);
  const report = typeof body.markdown === 'string' || isRecord(body.report) ? readReport(isRecord(body.report) ? body.report : body) : null;
  const error = pick(body, ['error', 'message', 'reason']);
  return good({
    state,
    reported: asText(raw)!,
    id: asText(pick(body, ['id', 'run_id', 'research_id'])),
    reportUrl: asText(pick(body, ['report_url', 'reportUrl', 'result_url'])),
    statusUrl: asText(pick(body, ['status_url', 'statusUrl', 'poll_url'])),
    citationCount: asNumber(body.citation_count),
    costUsd: asNumber(body.cost_usd),
    error: typeof error === 'string' ? error : isRecord(error) && typeof error.message === 'string' ? error.message : null,
    inlineReport: report?.ok ? report.value : null,
  });
}

export interface ReadReportCitation {
  id: string;
  /** Whatever the report said about the signal (a full signal object, or nothing). */
  fields: Json;
}

export interface ReadReport {
  markdown: string;
  topic: string | null;
  preset: string | null;
  createdAt: string | null;
  citations: ReadReportCitation[];
  citationCount: number | null;
  costUsd: number | null;
  costBasis: 'local' | 'model_usage' | null;
  verification: ReportVerification | null;
  changes: ReportChanges | null;
  series: ReportSeries[];
}

/** A research report's extensions (issue 46), each kept only when it has the shape the app draws. */
function readReportExtensions(body: Record<string, unknown>): Pick<ReadReport, 'costBasis' | 'verification' | 'changes' | 'series'> {
  const basis = body.cost_basis;
  const verification = ReportVerificationSchema.safeParse(body.verification);
  const raw = isRecord(body.changes) ? body.changes : null;
  const changes = raw
    ? ReportChangesSchema.safeParse({
        previousId: raw.previous_id,
        since: raw.since,
        newSignals: Array.isArray(raw.new_signals) ? raw.new_signals.map((entry) => (isRecord(entry) ? { id: entry.id, title: entry.title, publishedAt: entry.published_at } : entry)) : raw.new_signals,
        changedFigures: raw.changed_figures,
        resolvedDisagreements: raw.resolved_disagreements,
        newDisagreements: raw.new_disagreements,
      })
    : null;
  const series = z.array(ReportSeriesSchema).safeParse(body.series);
  return {
    costBasis: basis === 'local' || basis === 'model_usage' ? basis : null,
    verification: verification.success ? verification.data : null,
    changes: changes?.success ? changes.data : null,
    series: series.success ? series.data.slice(0, 8) : [],
  };
}

/** A JSON report: markdown is the one thing it must carry; citations may be ids or objects. */
export function readReport(body: unknown): Read<ReadReport> {
  if (!isRecord(body)) return bad('The report is not a JSON object.');
  const markdown = pick(body, ['markdown', 'content', 'body', 'text']);
  if (typeof markdown !== 'string') return bad('The report has no "markdown" text.');
  const citations = (Array.isArray(body.citations) ? body.citations : [])
    .map((entry): ReadReportCitation | null => {
      const id = citationId(entry);
      return id ? { id, fields: isRecord(entry) ? entry : {} } : null;
    })
    .filter((entry): entry is ReadReportCitation => entry !== null);
  return good({
    markdown,
    topic: asText(body.topic),
    preset: asText(body.preset),
    createdAt: asText(pick(body, ['created_at', 'createdAt', 'generated_at'])),
    citations,
    citationCount: asNumber(body.citation_count),
    costUsd: asNumber(body.cost_usd),
    ...readReportExtensions(body),
  });
}
