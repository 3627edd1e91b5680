import { randomBytes, randomInt } from 'node:crypto';
import type { QuestionFrame } from './answers/question';
import { slugify } from './corpus/random';
import { isUniqueViolation, type Database } from './store/database';

export interface SessionTurn {
  question: string;
  answer: string;
  citations: string[];
  confidence: number;
  at: string;
  /** How the question was understood, follow-ups resolved: the next turn's "there"/"they" read it. */
  frame?: QuestionFrame;
}

export interface Session {
  id: string;
  slug: string;
  isPublic: boolean;
  owner: string;
  turns: SessionTurn[];
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 12 base62 characters: about 71 bits, so a public page's address cannot be guessed. */
const SLUG_SECRET_LENGTH = 12;

export function unguessableSlug(firstQuestion: string): string {
  let secret = '';
  for (let i = 0; i < SLUG_SECRET_LENGTH; i += 1) secret += BASE62[randomInt(BASE62.length)];
  return `${slugify(firstQuestion).slice(0, 40) || 'session'}-${secret}`;
}

interface SessionRow {
  id: string;
  slug: string;
  owner: string;
  is_public: boolean;
}
interface TurnRow {
  question: string;
  answer: string;
  citations: string[];
  confidence: number;
  at: string;
  frame: QuestionFrame | null;
}

/**
 * Conversation sessions (`ses_` + 16 hex ids, a readable slug with an unguessable tail), kept in
 * the service's database with their turns, so a shared page `/ask/{slug}/{turn}` outlives a
 * restart and is served by every process of a team server.
 */
export class SessionStore {
  /**
   * A new session's row, written while its first answer is composed rather than before it (the
   * answer's first byte waited for it: a queue of inserts under 200 concurrent asks). Its first
   * turn, and any read by id, wait for the row, so nothing is acknowledged before it is stored.
   */
  private readonly rowWritten = new WeakMap<Session, Promise<void>>();
  private readonly creating = new Map<string, Promise<void>>();

  constructor(private readonly db: Database) {}

  /** Returns the session to continue, or a new one when the id is absent, unknown or another's. */
  async open(sessionId: string | undefined, firstQuestion: string, owner: string): Promise<Session> {
    const existing = sessionId ? await this.get(sessionId) : undefined;
    if (existing && existing.owner === owner) return existing;
    const session: Session = { id: `ses_${randomBytes(8).toString('hex')}`, slug: unguessableSlug(firstQuestion), isPublic: false, owner, turns: [] };
    const written = this.db
      .query('INSERT INTO ask_sessions (id, slug, owner, is_public, created_at) VALUES ($1, $2, $3, false, $4)', [session.id, session.slug, owner, new Date().toISOString()])
      .then(() => undefined);
    this.rowWritten.set(session, written);
    this.creating.set(session.id, written);
    // Settled either way: a failure reaches the caller through appendTurn, never as an unhandled rejection.
    written.then(
      () => this.creating.delete(session.id),
      () => this.creating.delete(session.id),
    );
    return session;
  }

  /** Adds the turn after the session's last one; resolves once it is durably stored. */
  async appendTurn(session: Session, turn: SessionTurn): Promise<void> {
    await this.rowWritten.get(session);
    for (let attempt = 0; ; attempt += 1) {
      try {
        const [row] = await this.db.query<{ ordinal: number }>(
          `INSERT INTO ask_turns (session_id, ordinal, question, answer, citations, confidence, at, frame)
           SELECT $1, coalesce(max(ordinal), 0) + 1, $2, $3, $4, $5, $6, $7 FROM ask_turns WHERE session_id = $1
           RETURNING ordinal`,
          [session.id, turn.question, turn.answer, JSON.stringify(turn.citations), turn.confidence, turn.at, turn.frame ? JSON.stringify(turn.frame) : null],
        );
        session.turns[row!.ordinal - 1] = turn;
        return;
      } catch (error) {
        // Two asks on one session at once: the other took this ordinal; take the next.
        if (!isUniqueViolation(error) || attempt >= 5) throw error;
      }
    }
  }

  async setPublic(session: Session, isPublic: boolean): Promise<void> {
    await this.rowWritten.get(session);
    await this.db.query('UPDATE ask_sessions SET is_public = $2 WHERE id = $1', [session.id, isPublic]);
    session.isPublic = isPublic;
  }

  async get(id: string): Promise<Session | undefined> {
    await this.creating.get(id)?.catch(() => undefined);
    const [row] = await this.db.query<SessionRow>('SELECT id, slug, owner, is_public FROM ask_sessions WHERE id = $1', [id]);
    return row ? this.withTurns(row) : undefined;
  }

  async getBySlug(slug: string): Promise<Session | undefined> {
    const [row] = await this.db.query<SessionRow>('SELECT id, slug, owner, is_public FROM ask_sessions WHERE slug = $1', [slug]);
    return row ? this.withTurns(row) : undefined;
  }

  private async withTurns(row: SessionRow): Promise<Session> {
    const turns = await this.db.query<TurnRow>('SELECT question, answer, citations, confidence, at, frame FROM ask_turns WHERE session_id = $1 ORDER BY ordinal', [row.id]);
    return {
      id: row.id,
      slug: row.slug,
      owner: row.owner,
      isPublic: row.is_public,
      turns: turns.map((turn) => ({ question: turn.question, answer: turn.answer, citations: turn.citations, confidence: turn.confidence, at: turn.at, ...(turn.frame ? { frame: turn.frame } : {}) })),
    };
  }
}
