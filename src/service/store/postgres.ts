/**
 * A real PostgreSQL server (`--database postgres://user:pass@host:5432/db`): the team server.
 * A pool of connections; several service processes may share one database (their coordination
 * is in the repositories: row locks, `FOR UPDATE SKIP LOCKED`, counters in tables).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import pgCopy from 'pg-copy-streams';
import { DatabaseStartError, DatabaseUnavailableError, isUnavailable, type Database, type Queryable } from './database';

const CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 8_000;

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    // libpq also takes the password as a query parameter.
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return 'the configured PostgreSQL URL';
  }
}

export async function openPostgresDatabase(url: string): Promise<PostgresDatabase> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseStartError('--database must be a URL like postgres://user:password@host:5432/database.');
  }
  if (!['postgres:', 'postgresql:'].includes(parsed.protocol)) throw new DatabaseStartError('--database must be a postgres:// URL.');
  // Timeouts keep a request that needs an unreachable server within the 10 s callers are promised (503, not a hang).
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: 'clarity-retail-signal',
  });
  // A server that goes away errors idle clients; that must not end the process (requests get 503).
  pool.on('error', () => undefined);
  const where = `${parsed.hostname}:${parsed.port || '5432'}`;
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    const code = (error as { code?: string }).code;
    const user = decodeURIComponent(parsed.username) || 'the default user';
    const database = decodeURIComponent(parsed.pathname.slice(1)) || 'the default database';
    if (code === '28P01' || code === '28000') throw new DatabaseStartError(`PostgreSQL at ${where} refused user ${user}: wrong password or not allowed (check --database).`);
    if (code === '3D000') throw new DatabaseStartError(`PostgreSQL at ${where} has no database ${database}: create it first (createdb ${database}).`);
    if (isUnavailable(error) || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new DatabaseStartError(`Cannot reach PostgreSQL at ${where} (${code ?? (error as Error).message}): is the server running and the address right?`);
    throw new DatabaseStartError(`PostgreSQL at ${where} could not be used: ${(error as Error).message}.`);
  }
  return new PostgresDatabase(pool, redactUrl(url));
}

const unavailable = (error: unknown): never => {
  throw isUnavailable(error) ? new DatabaseUnavailableError(error) : error;
};

export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
  ) {}

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    try {
      return (await this.pool.query(sql, params)).rows as T[];
    } catch (error) {
      return unavailable(error);
    }
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>, options: { timeoutMs?: number } = {}): Promise<T> {
    const client = await this.pool.connect().catch(unavailable);
    let broken = false;
    try {
      await client.query('BEGIN');
      const queryTimeout = options.timeoutMs ?? QUERY_TIMEOUT_MS;
      const result = await work({
        query: async (sql, params) => (await client.query({ text: sql, values: params, query_timeout: queryTimeout } as pg.QueryConfig)).rows,
        copyFrom: async (sql, chunks) => {
          const copy = Object.assign(pgCopy.from(sql), { query_timeout: queryTimeout });
          await pipeline(Readable.from(chunks), client.query(copy));
        },
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      broken = isUnavailable(error);
      if (!broken) await client.query('ROLLBACK').catch(() => undefined);
      return unavailable(error);
    } finally {
      client.release(broken);
    }
  }

  private closing: Promise<void> | null = null;

  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}
