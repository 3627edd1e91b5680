/**
 * Versioned, forward-only migrations, run at start. Each version is applied once, in order, in
 * one transaction with its record in `schema_migrations`. Before an existing database is
 * migrated it is backed up (embedded: a copy of its folder; PostgreSQL: a copy of every table in
 * a `clarity_backup_v<N>_<time>` schema of the same database, taken in the migrating
 * transaction). A database written by a newer version is refused, never downgraded.
 */
import { DatabaseStartError, type Database, type Queryable } from './database';
import { EmbeddedDatabase } from './embedded';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'service state',
    sql: `
CREATE TABLE ask_sessions (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  owner text NOT NULL,
  is_public boolean NOT NULL DEFAULT false,
  created_at text NOT NULL
);
CREATE TABLE ask_turns (
  session_id text NOT NULL REFERENCES ask_sessions(id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  question text NOT NULL,
  answer text NOT NULL,
  citations jsonb NOT NULL,
  confidence double precision NOT NULL,
  at text NOT NULL,
  frame jsonb,
  PRIMARY KEY (session_id, ordinal)
);
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  owner text NOT NULL,
  email text NOT NULL,
  sha256 text NOT NULL UNIQUE,
  last4 text NOT NULL,
  created_at text NOT NULL,
  revoked_at text,
  tier text
);
CREATE INDEX api_keys_owner ON api_keys (owner);
CREATE TABLE research_runs (
  id text PRIMARY KEY,
  owner text NOT NULL,
  topic text NOT NULL,
  preset text NOT NULL,
  status text NOT NULL,
  created_at text NOT NULL,
  completed_at text,
  markdown text,
  citations jsonb NOT NULL DEFAULT '[]',
  cost_usd double precision NOT NULL DEFAULT 0,
  error text,
  run_after_ms double precision NOT NULL,
  claimed_by text,
  lease_until_ms double precision
);
CREATE INDEX research_runs_queue ON research_runs (status, run_after_ms);
CREATE TABLE follows (
  id text PRIMARY KEY,
  owner text NOT NULL,
  target jsonb NOT NULL,
  created_at text NOT NULL
);
CREATE INDEX follows_owner ON follows (owner);
CREATE TABLE webhooks (
  id text PRIMARY KEY,
  owner text NOT NULL,
  url text NOT NULL,
  events jsonb NOT NULL,
  secret text NOT NULL,
  created_at text NOT NULL
);
CREATE INDEX webhooks_owner ON webhooks (owner);
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event text NOT NULL,
  created_at text NOT NULL,
  created_ms double precision NOT NULL,
  body text NOT NULL,
  state text NOT NULL,
  attempts jsonb NOT NULL DEFAULT '[]',
  next_attempt_ms double precision,
  lease_until_ms double precision
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_ms);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, created_ms);
CREATE TABLE identity_keys (
  kid text PRIMARY KEY,
  private_jwk jsonb NOT NULL,
  public_jwk jsonb NOT NULL,
  created_at text NOT NULL
);
CREATE TABLE rate_windows (
  bucket text PRIMARY KEY,
  window_start_ms double precision NOT NULL,
  count integer NOT NULL
);`,
  },
  {
    version: 2,
    name: 'webhook redeliveries',
    // A redelivery is a new delivery of the same body; this names the one it repeats.
    sql: `ALTER TABLE webhook_deliveries ADD COLUMN redelivery_of text;`,
  },
  {
    version: 3,
    name: 'signals and developer sessions',
    // Every signal (the sample's and the feed's) in one table; repository: signal-repository.ts.
    // Times are ISO 8601 UTC text like the other tables (they sort as text). `search` is the
    // full-text vector PostgreSQL keeps itself; signal_entities lets Discover take the newest
    // signals naming an entity from one index range instead of sorting every match.
    sql: `
CREATE TABLE signals (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  origin text NOT NULL CHECK (origin IN ('sample', 'feed')),
  source_id text NOT NULL,
  type text NOT NULL,
  title text NOT NULL,
  summary text NOT NULL,
  body text NOT NULL,
  url text NOT NULL,
  canonical_url text,
  entities jsonb NOT NULL,
  metrics jsonb NOT NULL,
  event_id text,
  period text,
  published_at text NOT NULL,
  published_at_source text CHECK (published_at_source IN ('item', 'fetch')),
  first_seen_at text,
  updated_at text,
  corroborated_by jsonb NOT NULL DEFAULT '[]',
  confidence double precision,
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', summary), 'B') || setweight(to_tsvector('english', body), 'C')
  ) STORED
);
CREATE INDEX signals_published ON signals (published_at DESC, id DESC);
CREATE INDEX signals_source_published ON signals (source_id, published_at DESC, id DESC);
CREATE INDEX signals_type_published ON signals (type, published_at DESC, id DESC);
CREATE INDEX signals_origin_published ON signals (origin, published_at DESC, id DESC);
CREATE INDEX signals_event ON signals (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX signals_search ON signals USING gin (search);
CREATE TABLE signal_entities (
  signal_id text NOT NULL REFERENCES signals(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('retailer', 'segment', 'city', 'state')),
  name text NOT NULL,
  published_at text NOT NULL,
  PRIMARY KEY (signal_id, kind, name)
);
CREATE INDEX signal_entities_newest ON signal_entities (name, published_at DESC, signal_id DESC);
-- The developer area's browser sessions (developer/sessions.ts): the cookie's SHA-256, never the cookie.
CREATE TABLE developer_sessions (
  id_sha256 text PRIMARY KEY,
  csrf text NOT NULL,
  user_json jsonb,
  expires_ms double precision NOT NULL
);
CREATE INDEX developer_sessions_expiry ON developer_sessions (expires_ms);`,
  },
  {
    version: 4,
    name: 'feed sources, state, history, oracle items and proposals',
    // One row per source holds its definition, its state (etag, failures, next fetch…) and the
    // fetch lease that keeps two processes of a team server from fetching it at once
    // (src/service/feed/feed-database.ts). The feed's signals go in the signals table (version 3),
    // origin 'feed', and outlive their source; history does not.
    sql: `
CREATE TABLE feed_sources (
  id text PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL,
  url text NOT NULL,
  cadence_s integer NOT NULL,
  role text NOT NULL,
  item_selector text,
  paused boolean NOT NULL DEFAULT false,
  created_at text NOT NULL,
  state jsonb NOT NULL,
  next_fetch_ms double precision,
  lease_owner text,
  lease_until_ms double precision,
  changed_ms double precision NOT NULL
);
CREATE INDEX feed_sources_due ON feed_sources (next_fetch_ms);
CREATE TABLE feed_fetches (
  seq bigserial PRIMARY KEY,
  source_id text NOT NULL REFERENCES feed_sources(id) ON DELETE CASCADE,
  record jsonb NOT NULL
);
CREATE INDEX feed_fetches_source ON feed_fetches (source_id, seq);
CREATE TABLE feed_oracle_items (
  canonical_url text PRIMARY KEY,
  source_id text NOT NULL,
  item jsonb NOT NULL,
  stored_ms double precision NOT NULL
);
CREATE INDEX feed_oracle_items_stored ON feed_oracle_items (stored_ms);
CREATE TABLE source_proposals (
  id text PRIMARY KEY,
  url text NOT NULL,
  name text,
  kind text,
  note text,
  proposed_by text NOT NULL,
  proposed_at text NOT NULL,
  status text NOT NULL,
  decided_at text,
  reason text,
  source_id text
);
CREATE INDEX source_proposals_status ON source_proposals (status, proposed_at);`,
  },
  {
    version: 5,
    name: 'signal change sequence',
    // Every insert or update of a signal takes the next number, so a start can read only what
    // changed since the index snapshot it kept (src/service/stored-signals.ts).
    sql: `
CREATE SEQUENCE signal_changes;
ALTER TABLE signals ADD COLUMN change_seq bigint;
UPDATE signals SET change_seq = nextval('signal_changes');
ALTER TABLE signals ALTER COLUMN change_seq SET DEFAULT nextval('signal_changes');
ALTER TABLE signals ALTER COLUMN change_seq SET NOT NULL;
CREATE INDEX signals_origin_change ON signals (origin, change_seq);`,
  },
  {
    version: 6,
    name: 'signal arrivals',
    // The follow feed's arrivals, shared by every process of a team server and kept across a
    // restart: `seq` is the feed's cursor (src/service/follows/follow-store.ts). `item` is the
    // signal as Discover lists it, so any process can show and match it; `claim_key` (a feed
    // signal's id) lets one process only announce a signal, so its webhooks are sent once.
    sql: `
CREATE TABLE signal_arrivals (
  seq bigserial PRIMARY KEY,
  signal_id text NOT NULL,
  item jsonb NOT NULL,
  at_ms double precision NOT NULL,
  backfill_for text REFERENCES follows(id) ON DELETE CASCADE,
  claim_key text UNIQUE
);
CREATE INDEX signal_arrivals_backfill ON signal_arrivals (backfill_for) WHERE backfill_for IS NOT NULL;`,
  },
  {
    version: 7,
    name: 'arrivals by signal and host fetch slots',
    // A follow feed lists a signal once, at its first matching row: it looks up a signal's other
    // arrival rows (src/service/follows/follow-store.ts). A host's fetch slot is a lease shared
    // by a team's processes: one request per host at a time, and the host's next allowed request
    // (politeness interval, Retry-After) holds for all of them (src/service/feed/feed-database.ts).
    sql: `
CREATE INDEX signal_arrivals_signal ON signal_arrivals (signal_id, seq);
CREATE TABLE feed_host_slots (
  host text PRIMARY KEY,
  holder text,
  until_ms double precision,
  next_ms double precision NOT NULL DEFAULT 0
);`,
  },
  {
    version: 8,
    name: 'signal byline',
    // Issue 44: who wrote a fetched item (a feed's author, an article's byline), kept on its signal.
    sql: `ALTER TABLE signals ADD COLUMN byline text;`,
  },
  {
    version: 9,
    name: 'research runs that research, and their schedules',
    // A run's progress while it works and what its report carries (verification, support, cost
    // basis, changes, the snapshot the next run of its topic compares with); `topic_key` finds
    // that previous run. A cost is null when a model ran without prices. Schedules are rows, so
    // every process of a team server sees them and one claims each due run (research-schedules.ts).
    sql: `
ALTER TABLE research_runs ADD COLUMN topic_key text;
ALTER TABLE research_runs ADD COLUMN progress jsonb;
ALTER TABLE research_runs ADD COLUMN details jsonb;
ALTER TABLE research_runs ADD COLUMN schedule_id text;
ALTER TABLE research_runs ALTER COLUMN cost_usd DROP NOT NULL;
CREATE INDEX research_runs_topic ON research_runs (owner, topic_key, completed_at);
CREATE TABLE research_schedules (
  id text PRIMARY KEY,
  owner text NOT NULL,
  topic text NOT NULL,
  preset text NOT NULL,
  every text NOT NULL,
  at_time text NOT NULL,
  created_at text NOT NULL,
  next_run_ms double precision NOT NULL,
  last_run_id text
);
CREATE INDEX research_schedules_owner ON research_schedules (owner);
CREATE INDEX research_schedules_due ON research_schedules (next_run_ms);`,
  },
  {
    version: 10,
    name: 'learned entities',
    // Organisations, brands and people learned from fetched items (src/service/feed/entity-learning.ts),
    // shared by a team server's processes: `key` is the name's lower-case letters and digits,
    // `changed_ms` the cursor other processes read new and changed entities by.
    sql: `
CREATE TABLE learned_entities (
  key text PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL,
  aliases jsonb NOT NULL,
  segments jsonb NOT NULL,
  cities jsonb NOT NULL,
  signals integer NOT NULL,
  first_seen_at text NOT NULL,
  updated_at text NOT NULL,
  changed_ms double precision NOT NULL
);
CREATE INDEX learned_entities_changed ON learned_entities (changed_ms);`,
  },
  {
    version: 11,
    name: 'signals without a link',
    // Issue 44: a fetched item without a link of its own has url null (it is cited by its source
    // and date); its id and canonical key still come from its guid or content. Such items stored
    // before were given their feed's page as url; their canonical key names them with a fragment
    // (#guid=… or #item=…), which a linked item's never has, so they are found and set null.
    sql: `
ALTER TABLE signals ALTER COLUMN url DROP NOT NULL;
UPDATE signals SET url = NULL WHERE origin = 'feed' AND (canonical_url LIKE '%#guid=%' OR canonical_url LIKE '%#item=%');`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;
/** Serialises migrations of several processes starting at once on one PostgreSQL. */
const MIGRATION_LOCK = 27_0001;
/** A migration (and its backup copy of every table) may take long on a big database. */
const MIGRATION_TIMEOUT_MS = 30 * 60_000;

export interface MigrationResult {
  from: number;
  to: number;
  /** Where the pre-migration backup went, when one was taken. */
  backup: string | null;
}

async function currentVersion(db: Queryable): Promise<number> {
  await db.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)');
  const [row] = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return row?.version ?? 0;
}

function refuseNewer(db: Database, version: number, known: number): void {
  if (version > known) {
    throw new DatabaseStartError(
      `The database at ${db.location} was written by a newer version of Clarity (schema ${version}; this version knows up to ${known}): upgrade Clarity, or point it at another database.`,
    );
  }
}

export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationResult> {
  const known = migrations.at(-1)?.version ?? 0;
  if (db instanceof EmbeddedDatabase || db.kind === 'embedded') {
    const from = await currentVersion(db);
    refuseNewer(db, from, known);
    if (from === known) return { from, to: known, backup: null };
    const backup = from > 0 && db instanceof EmbeddedDatabase ? await db.backup(`before-v${known}`) : null;
    await db.transaction(async (tx) => applyPending(tx, migrations, from));
    return { from, to: known, backup };
  }
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const from = await currentVersion(tx);
    refuseNewer(db, from, known);
    if (from === known) return { from, to: known, backup: null };
    const backup = from > 0 ? await backupSchema(tx, from) : null;
    await applyPending(tx, migrations, from);
    return { from, to: known, backup };
  }, { timeoutMs: MIGRATION_TIMEOUT_MS });
}

async function applyPending(tx: Queryable, migrations: readonly Migration[], from: number): Promise<void> {
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    await tx.query(migration.sql);
    await tx.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()]);
  }
}

/** Copies every table of the current schema into a backup schema of the same database. */
async function backupSchema(tx: Queryable, from: number): Promise<string> {
  const schema = `clarity_backup_v${from}_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  const tables = await tx.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()");
  await tx.query(`CREATE SCHEMA ${schema}`);
  for (const { name } of tables) await tx.query(`CREATE TABLE ${schema}.${name} AS TABLE ${name}`);
  return schema;
}
