/**
 * Browser sessions of the developer area: a random id in an HttpOnly, SameSite=Strict
 * cookie scoped to /developer, and a per-session CSRF token every form must echo
 * (synchronizer token). Signing in replaces the session (no fixation). Kept in the service's
 * database (only the id's SHA-256), so every process of a team server knows a signed-in browser.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthenticatedUser } from '../auth';
import type { Queryable } from '../store/database';

export const SESSION_COOKIE = 'rs_dev_session';
const SESSION_TTL_MS = 8 * 3_600_000;
/** An anonymous session only carries the sign-in form's CSRF token: it need not live long. */
const ANONYMOUS_TTL_MS = 30 * 60_000;
const MAX_SESSIONS = 5_000;
const SWEEP_EVERY_MS = 60_000;

export interface DeveloperSession {
  id: string;
  csrf: string;
  user: AuthenticatedUser | null;
  expiresAt: number;
}

interface SessionRow {
  csrf: string;
  user_json: AuthenticatedUser | null;
  expires_ms: number;
}

const idHash = (id: string): string => createHash('sha256').update(id).digest('hex');

export class DeveloperSessions {
  private lastSweep = 0;

  constructor(
    private readonly now: () => number,
    private readonly db: Queryable,
  ) {}

  /** The session named by the request's cookie header, if it is live. */
  async fromCookie(header: string | undefined): Promise<DeveloperSession | null> {
    const id = parseCookies(header)[SESSION_COOKIE];
    if (!id || !/^[0-9a-f]{64}$/.test(id)) return null;
    const [row] = await this.db.query<SessionRow>('SELECT csrf, user_json, expires_ms FROM developer_sessions WHERE id_sha256 = $1', [idHash(id)]);
    if (!row || row.expires_ms <= this.now()) {
      if (row) await this.db.query('DELETE FROM developer_sessions WHERE id_sha256 = $1', [idHash(id)]);
      return null;
    }
    return { id, csrf: row.csrf, user: row.user_json, expiresAt: row.expires_ms };
  }

  async create(user: AuthenticatedUser | null): Promise<DeveloperSession> {
    await this.sweep();
    const session: DeveloperSession = { id: randomBytes(32).toString('hex'), csrf: randomBytes(32).toString('hex'), user, expiresAt: this.now() + (user ? SESSION_TTL_MS : ANONYMOUS_TTL_MS) };
    await this.db.query('INSERT INTO developer_sessions (id_sha256, csrf, user_json, expires_ms) VALUES ($1, $2, $3, $4)', [
      idHash(session.id),
      session.csrf,
      user ? JSON.stringify(user) : null,
      session.expiresAt,
    ]);
    return session;
  }

  async end(session: DeveloperSession): Promise<void> {
    await this.db.query('DELETE FROM developer_sessions WHERE id_sha256 = $1', [idHash(session.id)]);
  }

  /** Constant-time check of a form's CSRF token against the session's. */
  static csrfMatches(session: DeveloperSession | null, token: unknown): boolean {
    if (!session || typeof token !== 'string') return false;
    const given = Buffer.from(token);
    const expected = Buffer.from(session.csrf);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  static cookie(session: DeveloperSession | null): string {
    // SECURITY: HttpOnly (no script reads it), SameSite=Strict (no cross-site sends), scoped to the area.
    return session
      ? `${SESSION_COOKIE}=${session.id}; Path=/developer; HttpOnly; SameSite=Strict; Max-Age=${(session.user ? SESSION_TTL_MS : ANONYMOUS_TTL_MS) / 1000}`
      : `${SESSION_COOKIE}=; Path=/developer; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  /** At most once a minute: expired sessions go, and the oldest beyond MAX_SESSIONS (anonymous visits cannot fill the disk). */
  private async sweep(): Promise<void> {
    const now = this.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    await this.db.query('DELETE FROM developer_sessions WHERE expires_ms <= $1', [now]);
    await this.db.query('DELETE FROM developer_sessions WHERE id_sha256 IN (SELECT id_sha256 FROM developer_sessions ORDER BY expires_ms DESC OFFSET $1)', [MAX_SESSIONS]);
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return cookies;
}
