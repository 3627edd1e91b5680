/**
 * Browser sessions of the developer area: a random id in an HttpOnly, SameSite=Strict
 * cookie scoped to /developer, and a per-session CSRF token every form must echo
 * (synchronizer token). Signing in replaces the session (no fixation). In memory only.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthenticatedUser } from '../auth';

export const SESSION_COOKIE = 'rs_dev_session';
const SESSION_TTL_MS = 8 * 3_600_000;
const MAX_SESSIONS = 5_000;

export interface DeveloperSession {
  id: string;
  csrf: string;
  user: AuthenticatedUser | null;
  expiresAt: number;
}

export class DeveloperSessions {
  private readonly sessions = new Map<string, DeveloperSession>();

  constructor(private readonly now: () => number) {}

  /** The session named by the request's cookie header, if it is live. */
  fromCookie(header: string | undefined): DeveloperSession | null {
    const id = parseCookies(header)[SESSION_COOKIE];
    if (!id) return null;
    const session = this.sessions.get(id);
    if (!session || session.expiresAt <= this.now()) {
      if (session) this.sessions.delete(id);
      return null;
    }
    return session;
  }

  create(user: AuthenticatedUser | null): DeveloperSession {
    if (this.sessions.size >= MAX_SESSIONS) this.sweep();
    const session: DeveloperSession = { id: randomBytes(32).toString('hex'), csrf: randomBytes(32).toString('hex'), user, expiresAt: this.now() + SESSION_TTL_MS };
    this.sessions.set(session.id, session);
    return session;
  }

  end(session: DeveloperSession): void {
    this.sessions.delete(session.id);
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
      ? `${SESSION_COOKIE}=${session.id}; Path=/developer; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`
      : `${SESSION_COOKIE}=; Path=/developer; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
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
