/**
 * Signals in the database (migration 3): the sample's and the feed's in one table, written in
 * batches, read by id or slug, listed newest first with Discover's filters (keyset pages), and
 * searched with PostgreSQL full-text search. The same SQL runs embedded (PGlite) and on a server.
 */
import type { CorpusSignal, SignalType } from '../world/signal-types';
import type { Database, Queryable } from './database';

/** A signal as stored: the corpus shape, where it came from, and the feed's extra fields. */
export interface StoredSignal extends CorpusSignal {
  origin: 'sample' | 'feed';
  canonical_url?: string | null;
  published_at_source?: 'item' | 'fetch' | null;
  first_seen_at?: string | null;
  updated_at?: string | null;
  /** Other signals carrying the same story. */
  corroborated_by?: string[];
  confidence?: number | null;
  /** Who wrote a fetched item, when its source says so (feed author, article byline). */
  byline?: string | null;
}

export interface NewestFilter {
  origin?: 'sample' | 'feed';
  sourceId?: string;
  type?: SignalType;
  /** Any entity (retailer, segment, city or state) by name, case-insensitive; several = any of them. */
  entities?: string[];
  /** ISO times, inclusive. */
  since?: string;
  until?: string;
  /** The last signal of the previous page (keyset paging: stable while signals arrive). */
  after?: { published_at: string; id: string };
  limit?: number;
}

export interface TextHit {
  signal: StoredSignal;
  /** PostgreSQL's ts_rank with weights title > summary > body, before any recency boost. */
  rank: number;
}

/** Rows per INSERT: big enough to amortise a round trip, small enough for one statement's memory. */
export const SIGNAL_BATCH = 1_000;
const MAX_LIMIT = 1_000;
/** Rows per statement in a bulk load (no index to keep up to date, so bigger statements pay). */
const BULK_BATCH = 5_000;
const BULK_INDEX_MEMORY = '256MB';

const COLUMNS = `id, slug, origin, source_id, type, title, summary, body, url, canonical_url, entities, metrics, event_id, period,
  published_at, published_at_source, first_seen_at, updated_at, corroborated_by, confidence, byline`;

interface SignalRow {
  id: string;
  slug: string;
  origin: 'sample' | 'feed';
  source_id: string;
  type: SignalType;
  title: string;
  summary: string;
  body: string;
  url: string | null;
  canonical_url: string | null;
  entities: CorpusSignal['entities'];
  metrics: Record<string, number>;
  event_id: string | null;
  period: string | null;
  published_at: string;
  published_at_source: 'item' | 'fetch' | null;
  first_seen_at: string | null;
  updated_at: string | null;
  corroborated_by: string[];
  confidence: number | null;
  byline: string | null;
}

const iso = (value: string): string => {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`not a date: ${value}`);
  return new Date(ms).toISOString();
};
const isoOrNull = (value: string | null | undefined): string | null => (value ? iso(value) : null);

function toRow(signal: StoredSignal): SignalRow {
  return {
    id: signal.id,
    slug: signal.slug,
    origin: signal.origin,
    source_id: signal.source_id,
    type: signal.type,
    title: signal.title,
    summary: signal.summary,
    body: signal.body,
    url: signal.url,
    canonical_url: signal.canonical_url ?? null,
    entities: signal.entities,
    metrics: signal.metrics,
    event_id: signal.event_id ?? null,
    period: signal.period ?? null,
    published_at: iso(signal.published_at),
    published_at_source: signal.published_at_source ?? null,
    first_seen_at: isoOrNull(signal.first_seen_at),
    updated_at: isoOrNull(signal.updated_at),
    corroborated_by: signal.corroborated_by ?? [],
    confidence: signal.confidence ?? null,
    byline: signal.byline ?? null,
  };
}

/** Back to the shape the service cites: optional corpus fields and the feed's only where set. */
function fromRow(row: SignalRow): StoredSignal {
  const signal: StoredSignal = {
    id: row.id,
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    body: row.body,
    source_id: row.source_id,
    url: row.url,
    published_at: row.published_at,
    type: row.type,
    entities: row.entities,
    metrics: row.metrics,
    origin: row.origin,
  };
  if (row.event_id !== null) signal.event_id = row.event_id;
  if (row.period !== null) signal.period = row.period;
  if (row.origin === 'feed') {
    signal.canonical_url = row.canonical_url;
    signal.published_at_source = row.published_at_source;
    signal.first_seen_at = row.first_seen_at;
    signal.updated_at = row.updated_at;
    signal.corroborated_by = row.corroborated_by;
    signal.confidence = row.confidence;
    if (row.byline !== null) signal.byline = row.byline;
  }
  return signal;
}

const ENTITY_KINDS = [
  ['retailers', 'retailer'],
  ['segments', 'segment'],
  ['cities', 'city'],
  ['states', 'state'],
] as const;

function entityRows(signal: SignalRow): Array<{ signal_id: string; kind: string; name: string; published_at: string }> {
  const rows = new Map<string, { signal_id: string; kind: string; name: string; published_at: string }>();
  for (const [field, kind] of ENTITY_KINDS) {
    for (const name of signal.entities[field] ?? []) {
      const lower = name.trim().toLowerCase();
      if (lower) rows.set(`${kind}:${lower}`, { signal_id: signal.id, kind, name: lower, published_at: signal.published_at });
    }
  }
  return [...rows.values()];
}

/** Words of a question as an OR query for to_tsquery (PostgreSQL stems and drops stop words itself). */
export function orQuery(text: string): string | null {
  const words = [...new Set(text.toLowerCase().normalize('NFKD').split(/[^a-z0-9]+/).filter((word) => word.length >= 2))];
  return words.length ? words.slice(0, 32).join(' | ') : null;
}

export class SignalRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts or replaces signals (by id), in batches, each batch in one transaction with its
   * entity rows. Returns how many were written. A bulk load may lift the per-statement wait
   * (`timeoutMs`): a batch into a big table's full-text index can take longer than a request may.
   */
  async put(signals: readonly StoredSignal[], options: { timeoutMs?: number } = {}): Promise<number> {
    for (let at = 0; at < signals.length; at += SIGNAL_BATCH) {
      const rows = signals.slice(at, at + SIGNAL_BATCH).map(toRow);
      await this.db.transaction((tx) => writeBatch(tx, rows), options);
    }
    return signals.length;
  }

  /**
   * Loads many signals at once (an import; the storage bench's million): written as `put` writes
   * them, but in one transaction that first drops the two tables' secondary indexes (the
   * full-text GIN among them, read from the catalog, so they stay the migrations' own) and builds
   * them again from the loaded rows. Building an index once costs a fraction of keeping it up to
   * date row by row (bench/notes.md); being one transaction, a failure leaves the tables as they
   * were, and no reader sees the rows without their indexes. The tables are locked meanwhile:
   * for a load before serving, not beside live requests. The signals must be new to the table
   * (on a server an id already stored fails the load, nothing written).
   */
  async bulkLoad(signals: readonly StoredSignal[], options: { timeoutMs?: number; batch?: number } = {}): Promise<number> {
    const batch = options.batch ?? BULK_BATCH;
    await this.db.transaction(async (tx) => {
      const indexes = await tx.query<{ name: string; definition: string }>(
        `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
         WHERE i.schemaname = current_schema() AND i.tablename IN ('signals', 'signal_entities')
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
         ORDER BY i.indexname`,
      );
      for (const index of indexes) await tx.query(`DROP INDEX "${index.name.replace(/"/g, '""')}"`);
      if (tx.copyFrom) {
        // Index builds sort in memory rather than on disk (this transaction only; a server's memory, not PGlite's).
        await tx.query(`SET LOCAL maintenance_work_mem = '${BULK_INDEX_MEMORY}'`);
        // A server: COPY, whose text lines PostgreSQL reads faster than JSON (bench/notes.md). Keys
        // are dropped too and added back after (one index build, one join for the foreign key,
        // instead of a check per row): COPY needs neither, INSERT … ON CONFLICT below does.
        const constraints = await tx.query<{ table: string; name: string; definition: string; foreign: boolean }>(
          `SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS definition, c.contype = 'f' AS foreign
           FROM pg_constraint c
           WHERE c.conrelid IN ('signals'::regclass, 'signal_entities'::regclass) AND c.contype IN ('p', 'u', 'f')
           ORDER BY c.contype = 'f' DESC, c.conname`,
        );
        for (const constraint of constraints) await tx.query(`ALTER TABLE ${constraint.table} DROP CONSTRAINT "${constraint.name.replace(/"/g, '""')}"`);
        await tx.copyFrom(`COPY signals (${COLUMNS}) FROM STDIN`, copyLines(signals, batch, (signal) => signalLine(toRow(signal))));
        await tx.copyFrom('COPY signal_entities (signal_id, kind, name, published_at) FROM STDIN', copyLines(signals, batch, (signal) => entityRows(toRow(signal)).map(entityLine).join('')));
        // Keys first, then the foreign key that needs them.
        for (const constraint of [...constraints].reverse()) await tx.query(`ALTER TABLE ${constraint.table} ADD CONSTRAINT "${constraint.name.replace(/"/g, '""')}" ${constraint.definition}`);
      } else {
        for (let at = 0; at < signals.length; at += batch) await writeBatch(tx, signals.slice(at, at + batch).map(toRow));
      }
      for (const index of indexes) await tx.query(index.definition);
    }, options);
    return signals.length;
  }

  async get(id: string): Promise<StoredSignal | null> {
    const [row] = await this.db.query<SignalRow>(`SELECT ${COLUMNS} FROM signals WHERE id = $1`, [id]);
    return row ? fromRow(row) : null;
  }

  async getBySlug(slug: string): Promise<StoredSignal | null> {
    const [row] = await this.db.query<SignalRow>(`SELECT ${COLUMNS} FROM signals WHERE slug = $1`, [slug]);
    return row ? fromRow(row) : null;
  }

  /** The signals with these ids that exist, in the order asked. */
  async getMany(ids: readonly string[]): Promise<StoredSignal[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<SignalRow>(`SELECT ${COLUMNS} FROM signals WHERE id = ANY($1::text[])`, [ids]);
    const byId = new Map(rows.map((row) => [row.id, fromRow(row)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async count(origin?: 'sample' | 'feed'): Promise<number> {
    const [row] = origin
      ? await this.db.query<{ n: string | number }>('SELECT count(*) AS n FROM signals WHERE origin = $1', [origin])
      : await this.db.query<{ n: string | number }>('SELECT count(*) AS n FROM signals');
    return Number(row?.n ?? 0);
  }

  async remove(id: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM signals WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }

  /** Newest first (published_at, then id), filtered; page on with `after` = the last one returned. */
  async newest(filter: NewestFilter = {}): Promise<StoredSignal[]> {
    const params: unknown[] = [];
    const where: string[] = [];
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    const entities = filter.entities?.map((name) => name.trim().toLowerCase()).filter(Boolean);
    const s = entities?.length ? 'e' : 'signals';
    if (filter.origin) where.push(`signals.origin = ${param(filter.origin)}`);
    if (filter.sourceId) where.push(`signals.source_id = ${param(filter.sourceId)}`);
    if (filter.type) where.push(`signals.type = ${param(filter.type)}`);
    if (filter.since) where.push(`${s}.published_at >= ${param(iso(filter.since))}`);
    if (filter.until) where.push(`${s}.published_at <= ${param(iso(filter.until))}`);
    if (filter.after) where.push(`(${s}.published_at, ${s === 'e' ? 'e.signal_id' : 'signals.id'}) < (${param(iso(filter.after.published_at))}, ${param(filter.after.id)})`);
    const limit = param(Math.min(Math.max(1, filter.limit ?? 20), MAX_LIMIT));
    if (entities?.length) {
      // Walks the entity index newest first (several names: each name's range, merged), so a
      // common retailer costs a page, not a sort of every signal naming it.
      where.unshift(`e.name = ANY(${param(entities)}::text[])`);
      const rows = await this.db.query<SignalRow>(
        `SELECT DISTINCT ON (e.published_at, e.signal_id) ${prefixed('signals')}
         FROM signal_entities e JOIN signals ON signals.id = e.signal_id
         WHERE ${where.join(' AND ')}
         ORDER BY e.published_at DESC, e.signal_id DESC LIMIT ${limit}`,
        params,
      );
      return rows.map(fromRow);
    }
    const rows = await this.db.query<SignalRow>(
      `SELECT ${COLUMNS} FROM signals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY published_at DESC, id DESC LIMIT ${limit}`,
      params,
    );
    return rows.map(fromRow);
  }

  /**
   * Full-text search: signals matching any word of `text` (stemmed, stop words dropped), best
   * ts_rank first; `until` hides what was published after it.
   */
  async search(text: string, options: { limit?: number; until?: string } = {}): Promise<TextHit[]> {
    const query = orQuery(text);
    if (!query) return [];
    const params: unknown[] = [query, Math.min(Math.max(1, options.limit ?? 20), MAX_LIMIT)];
    const until = options.until ? `AND published_at <= $${params.push(iso(options.until))}` : '';
    const rows = await this.db.query<SignalRow & { rank: number }>(
      `SELECT ${COLUMNS}, ts_rank(search, q) AS rank
       FROM signals, to_tsquery('english', $1) q
       WHERE search @@ q ${until}
       ORDER BY rank DESC, published_at DESC LIMIT $2`,
      params,
    );
    return rows.map((row) => ({ signal: fromRow(row), rank: Number(row.rank) }));
  }

  /** How many signals of this origin there are, and the newest change number among them (0: none). */
  async changeMark(origin: 'sample' | 'feed'): Promise<{ count: number; changeSeq: number }> {
    const [row] = await this.db.query<{ n: string | number; seq: string | number | null }>('SELECT count(*) AS n, max(change_seq) AS seq FROM signals WHERE origin = $1', [origin]);
    return { count: Number(row?.n ?? 0), changeSeq: Number(row?.seq ?? 0) };
  }

  /**
   * The signals of this origin inserted or changed after change number `after`, in change order,
   * in pages of `batch`. Each page comes back as one JSON text (parsed here once): row by row,
   * PGlite's result decoding was twice as slow (bench/notes.md).
   */
  async *changedSince(origin: 'sample' | 'feed', after: number, batch = 2_000): AsyncGenerator<{ signals: StoredSignal[]; changeSeq: number }> {
    let cursor = after;
    for (;;) {
      const [page] = await this.db.query<{ rows: string | null; last: string | number | null }>(
        `SELECT json_agg(page ORDER BY page.change_seq)::text AS rows, max(page.change_seq) AS last
         FROM (SELECT ${COLUMNS}, change_seq FROM signals WHERE origin = $1 AND change_seq > $2 ORDER BY change_seq LIMIT $3) page`,
        [origin, cursor, batch],
      );
      if (!page?.rows) return;
      const rows = JSON.parse(page.rows) as Array<SignalRow & { change_seq: number }>;
      cursor = Number(page.last);
      yield { signals: rows.map(fromRow), changeSeq: cursor };
      if (rows.length < batch) return;
    }
  }

  /** Every signal in pages of `batch`, oldest first (loading an index beside the table). */
  async *scan(batch = 5_000): AsyncGenerator<StoredSignal[]> {
    let after: { published_at: string; id: string } | null = null;
    for (;;) {
      const rows: SignalRow[] = after
        ? await this.db.query<SignalRow>(`SELECT ${COLUMNS} FROM signals WHERE (published_at, id) > ($1, $2) ORDER BY published_at, id LIMIT $3`, [after.published_at, after.id, batch])
        : await this.db.query<SignalRow>(`SELECT ${COLUMNS} FROM signals ORDER BY published_at, id LIMIT $1`, [batch]);
      if (rows.length === 0) return;
      yield rows.map(fromRow);
      const last = rows[rows.length - 1]!;
      after = { published_at: last.published_at, id: last.id };
      if (rows.length < batch) return;
    }
  }
}

/** A value in COPY's text format: \N for null, backslash escapes for the separators. */
function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

const COLUMN_NAMES = COLUMNS.split(',').map((column) => column.trim()) as Array<keyof SignalRow>;
const signalLine = (row: SignalRow): string => `${COLUMN_NAMES.map((column) => copyField(row[column])).join('\t')}\n`;
const entityLine = (row: { signal_id: string; kind: string; name: string; published_at: string }): string =>
  `${copyField(row.signal_id)}\t${copyField(row.kind)}\t${copyField(row.name)}\t${copyField(row.published_at)}\n`;

/** COPY's input in chunks of `batch` signals' lines (made as they are sent, not all at once). */
function* copyLines(signals: readonly StoredSignal[], batch: number, line: (signal: StoredSignal) => string): Generator<string> {
  for (let at = 0; at < signals.length; at += batch) {
    let chunk = '';
    for (const signal of signals.slice(at, at + batch)) chunk += line(signal);
    if (chunk) yield chunk;
  }
}

function prefixed(table: string): string {
  return COLUMNS.split(',')
    .map((column) => `${table}.${column.trim()}`)
    .join(', ');
}

/** One batch: the signals as one jsonb array (one parameter, any size), then their entity rows. */
async function writeBatch(tx: Queryable, rows: SignalRow[]): Promise<void> {
  await tx.query(
    `INSERT INTO signals (${COLUMNS})
     SELECT ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(
       id text, slug text, origin text, source_id text, type text, title text, summary text, body text, url text,
       canonical_url text, entities jsonb, metrics jsonb, event_id text, period text, published_at text,
       published_at_source text, first_seen_at text, updated_at text, corroborated_by jsonb, confidence double precision, byline text)
     ON CONFLICT (id) DO UPDATE SET
       slug = EXCLUDED.slug, origin = EXCLUDED.origin, source_id = EXCLUDED.source_id, type = EXCLUDED.type,
       title = EXCLUDED.title, summary = EXCLUDED.summary, body = EXCLUDED.body, url = EXCLUDED.url,
       canonical_url = EXCLUDED.canonical_url, entities = EXCLUDED.entities, metrics = EXCLUDED.metrics,
       event_id = EXCLUDED.event_id, period = EXCLUDED.period, published_at = EXCLUDED.published_at,
       published_at_source = EXCLUDED.published_at_source, first_seen_at = EXCLUDED.first_seen_at,
       updated_at = EXCLUDED.updated_at, corroborated_by = EXCLUDED.corroborated_by, confidence = EXCLUDED.confidence,
       byline = EXCLUDED.byline, change_seq = nextval('signal_changes')`,
    [JSON.stringify(rows)],
  );
  // Replaced signals may name other entities now: their rows are written again.
  await tx.query('DELETE FROM signal_entities WHERE signal_id = ANY($1::text[])', [rows.map((row) => row.id)]);
  const entities = rows.flatMap(entityRows);
  if (entities.length === 0) return;
  await tx.query(
    `INSERT INTO signal_entities (signal_id, kind, name, published_at)
     SELECT signal_id, kind, name, published_at FROM jsonb_to_recordset($1::jsonb) AS r(signal_id text, kind text, name text, published_at text)`,
    [JSON.stringify(entities)],
  );
}
