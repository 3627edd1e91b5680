/**
 * The service's one database: PostgreSQL's dialect everywhere. Embedded by default (PGlite, in
 * the data directory, no server: embedded.ts) or a real PostgreSQL (`--database postgres://…`:
 * postgres.ts). Repositories see only `Database`, so every query is written once.
 * Decision: docs/decisions/service-database.md.
 */

export interface Queryable {
  /** Runs one statement; `$1…` parameters; rows as plain objects (jsonb parsed). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /**
   * `COPY … FROM STDIN` (text format) fed with these chunks of lines: PostgreSQL's fastest way in
   * for many rows. Only a PostgreSQL server's transaction has it; elsewhere, INSERT instead.
   */
  copyFrom?(sql: string, chunks: Iterable<string>): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /** What to name in messages: the embedded database's folder, or the server without its password. */
  readonly location: string;
  /**
   * Runs `work` in one transaction (committed when it resolves, rolled back when it throws).
   * `timeoutMs` lifts the per-statement wait for long work (migrations); requests keep the short one.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: { timeoutMs?: number }): Promise<T>;
  close(): Promise<void>;
}

/** The database cannot be reached right now (a stopped server, a dropped connection): 503 to callers. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The database is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'DatabaseUnavailableError';
  }
}

/** The database cannot be opened as configured: one plain sentence for the operator, no stack. */
export class DatabaseStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseStartError';
  }
}

/** PostgreSQL error classes that mean "not reachable now", not "this query is wrong". */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const code = (error as { code?: string } | null)?.code;
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Query read timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(message);
}

/** A unique-constraint violation (a concurrent insert won). */
export const isUniqueViolation = (error: unknown): boolean => (error as { code?: string } | null)?.code === '23505';
