import type { QuestionFrame } from './answers/question';
import { slugify } from './corpus/random';
import { randomHex, randomString } from './random-ids';
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
  return `${slugify(firstQuestion).slice(0, 40) || 'session'}-${randomString(BASE62, SLUG_SECRET_LENGTH)}`;
}

/** Rows in one INSERT: at most 11 parameters each (a turn, and its new session's row), and PostgreSQL takes at most 65,535 in a statement. */
const ROWS_PER_INSERT = 1_000;

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
   * A new session's row, written once its ask needs it rather than as the ask arrives: by its
   * first turn, a read by id, a change of its visibility, or the ask's end (`persist`), whichever
   * comes first. Its first turn goes in the same statement as the row; a read by id, or a
   * later turn, waits for the row, so nothing is acknowledged before it is stored; the service's
   * close writes any still held back (`flush`). On PostgreSQL the row goes in at once (`open`).
   * Under 200 asks at once, each row's statement had run on the database's
   * thread while the later asks were still arriving (its CPU, 26–77 ms before the p95 first byte
   * in the slow bursts; bench/notes.md, streams2), beside the client that sends them.
   */
  private readonly rowWritten = new WeakMap<Session, Promise<void>>();
  private readonly creating = new Map<string, Promise<void>>();
  /** New sessions' rows not queued for writing yet (by session id), until `persist` or a use queues them. */
  private readonly unqueued = new Map<string, SessionStore['newRows'][number]>();
  /**
   * New rows wait here for the next event-loop turn and go in as one INSERT. One insert per ask, started as it was accepted,
   * held up every request read after it (profiled under 200 concurrent asks, when the embedded
   * database still ran on this thread). One statement for many rows costs about as much as one.
   */
  private newRows: Array<{ session: Session; createdAt: string; written: () => void; failed: (error: unknown) => void }> = [];
  /** `row`: a new session's row, written by the same statement as its first turn. */
  private newTurns: Array<{ session: Session; turn: SessionTurn; row?: SessionStore['newRows'][number]; stored: () => void; failed: (error: unknown) => void }> = [];
  /**
   * Whether a statement of new rows (turns) is on its way. Rows (turns) queued meanwhile wait
   * for it and then go in together: the database runs one statement at a time anyway, so they
   * are stored no later, in one statement and commit instead of one per event-loop turn (under
   * 200 concurrent asks, one per compose: 200 commits on the database's thread, whose CPU the
   * asks still being read needed).
   */
  private writingRows = false;
  private writingTurns = false;

  constructor(private readonly db: Database) {}

  /** Returns the session to continue, or a new one when the id is absent, unknown or another's. */
  async open(sessionId: string | undefined, firstQuestion: string, owner: string): Promise<Session> {
    const existing = sessionId ? await this.get(sessionId) : undefined;
    if (existing && existing.owner === owner) return existing;
    const session: Session = { id: `ses_${randomHex(8)}`, slug: unguessableSlug(firstQuestion), isPublic: false, owner, turns: [] };
    const written = new Promise<void>((resolve, reject) => {
      this.unqueued.set(session.id, { session, createdAt: new Date().toISOString(), written: resolve, failed: reject });
    });
    this.rowWritten.set(session, written);
    this.creating.set(session.id, written);
    // Settled either way: a failure reaches the caller through appendTurn, never as an unhandled rejection.
    written.then(
      () => this.creating.delete(session.id),
      () => this.creating.delete(session.id),
    );
    // A team server's processes share PostgreSQL: another process may be asked for this session
    // (a share, a follow-up) as soon as message_start names it, while its first answer streams,
    // so there its row is stored before the session is handed back (not merely queued: under
    // load the other process was asked before the row had gone in).
    if (this.db.kind === 'postgres') {
      this.queueRow(session.id);
      await written;
    }
    return session;
  }

  /**
   * Writes every new session's row still held back and waits for the rows on their way. The
   * service's close calls it before the database closes: an ask whose stream was cut may still
   * be asleep (a pace, a model call, its turn in line) when the server has closed, and its
   * session, announced in message_start, must survive the restart.
   */
  async flush(): Promise<void> {
    for (const id of [...this.unqueued.keys()]) this.queueRow(id);
    await Promise.all([...this.creating.values()].map((written) => written.catch(() => undefined)));
  }

  /**
   * Queues a new session's row for writing, if it is not already (the ask route calls this as
   * its ask ends, so a stream cut before its answer still leaves its session stored). Resolves
   * once the row is stored; a session read from the database resolves at once.
   */
  persist(session: Session): Promise<void> {
    this.queueRow(session.id);
    return this.rowWritten.get(session) ?? Promise.resolve();
  }

  private queueRow(id: string): void {
    const row = this.unqueued.get(id);
    if (!row) return;
    this.unqueued.delete(id);
    this.requeueRow(row);
  }

  private requeueRow(row: SessionStore['newRows'][number]): void {
    if (this.newRows.length === 0 && !this.writingRows) setImmediate(() => void this.writeNewRows());
    this.newRows.push(row);
  }

  /** Writes the new sessions' rows queued since the last turn: one statement, or row by row if it fails (one bad row fails only its ask). */
  private async writeNewRows(): Promise<void> {
    this.writingRows = true;
    try {
      // Rows queued while a statement ran go in the next one, at once.
      while (this.newRows.length > 0) {
        const rows = this.newRows;
        this.newRows = [];
        // Whatever goes wrong fails these rows' asks, never the writes queued after them
        // (a settled ask's promise ignores a second settle).
        await this.writeRows(rows).catch((error: unknown) => rows.forEach((row) => row.failed(error)));
      }
    } finally {
      this.writingRows = false;
    }
  }

  private async writeRows(rows: SessionStore['newRows']): Promise<void> {
    const insert = (batch: typeof rows): Promise<unknown> =>
      this.db.query(
        `INSERT INTO ask_sessions (id, slug, owner, is_public, created_at) VALUES ${batch.map((_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, false, $${i * 4 + 4})`).join(', ')}`,
        batch.flatMap(({ session, createdAt }) => [session.id, session.slug, session.owner, createdAt]),
      );
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const batch = rows.slice(start, start + ROWS_PER_INSERT);
      try {
        await insert(batch);
        for (const row of batch) row.written();
      } catch (error) {
        if (batch.length === 1) batch[0]!.failed(error);
        else for (const row of batch) await insert([row]).then(row.written, row.failed);
      }
    }
  }

  /** Adds the turn after the session's last one; resolves once it is durably stored. */
  async appendTurn(session: Session, turn: SessionTurn): Promise<void> {
    // A new session's first turn takes its row along: one statement (and one trip to the
    // database's thread) for both, where the row's own statement and then the turn's were two.
    const row = this.unqueued.get(session.id);
    if (row) this.unqueued.delete(session.id);
    else await this.persist(session);
    await new Promise<void>((stored, failed) => {
      if (this.newTurns.length === 0 && !this.writingTurns) setImmediate(() => void this.writeNewTurns());
      this.newTurns.push({ session, turn, ...(row ? { row } : {}), stored, failed });
    });
  }

  private async writeNewTurns(): Promise<void> {
    this.writingTurns = true;
    try {
      // Turns queued while a statement ran go in the next one, at once (a session's second turn
      // in the same queue waits for the statement after: ordinals stay in order).
      while (this.newTurns.length > 0) {
        const batch = this.takeTurnBatch();
        // As for rows: a failure fails this batch's asks, never the turns queued after it. A new
        // session's row that came with a failed turn is still written, on its own.
        await this.writeTurns(batch).catch((error: unknown) =>
          batch.forEach((entry) => {
            if (entry.row) this.requeueRow(entry.row);
            entry.failed(error);
          }),
        );
      }
    } finally {
      this.writingTurns = false;
    }
  }

  /** The queued turns for one statement: one per session (its next waits), at most ROWS_PER_INSERT. */
  private takeTurnBatch(): SessionStore['newTurns'] {
    const queued = this.newTurns;
    const batch: typeof queued = [];
    const later: typeof queued = [];
    const inBatch = new Set<string>();
    for (const entry of queued) {
      if (inBatch.has(entry.session.id) || batch.length >= ROWS_PER_INSERT) later.push(entry);
      else {
        inBatch.add(entry.session.id);
        batch.push(entry);
      }
    }
    this.newTurns = later;
    return batch;
  }

  /**
   * Writes the turns appended since the last event-loop turn as one statement (as for new
   * sessions' rows: one commit instead of one per answer). One turn per session goes in a
   * statement; a session's next turn waits for the next one, so ordinals stay in order. If the
   * statement fails, each turn is written alone (with the retries of a concurrent ask).
   */
  private async writeTurns(batch: SessionStore['newTurns']): Promise<void> {
    const params: unknown[] = [];
    const values = batch.map(({ session, turn }) => {
      const first = params.length + 1;
      params.push(session.id, turn.question, turn.answer, JSON.stringify(turn.citations), turn.confidence, turn.at, turn.frame ? JSON.stringify(turn.frame) : null);
      return `(${Array.from({ length: 7 }, (_, i) => `$${first + i}`).join(', ')})`;
    });
    // New sessions' rows go in the same statement, ahead of their turns (a data-modifying WITH:
    // the turns' foreign keys are checked at the statement's end, with the rows in).
    const newRows = batch.flatMap((entry) => (entry.row ? [entry.row] : []));
    const rowValues = newRows.map(({ session, createdAt }) => {
      const first = params.length + 1;
      params.push(session.id, session.slug, session.owner, createdAt);
      return `($${first}, $${first + 1}, $${first + 2}, false, $${first + 3})`;
    });
    const withRows = rowValues.length > 0 ? `WITH new_sessions AS (INSERT INTO ask_sessions (id, slug, owner, is_public, created_at) VALUES ${rowValues.join(', ')} RETURNING id)\n` : '';
    let rows: Array<{ session_id: string; ordinal: number }>;
    try {
      rows = await this.db.query<{ session_id: string; ordinal: number }>(
        `${withRows}INSERT INTO ask_turns (session_id, ordinal, question, answer, citations, confidence, at, frame)
         SELECT v.session_id, coalesce((SELECT max(t.ordinal) FROM ask_turns t WHERE t.session_id = v.session_id), 0) + 1,
                v.question, v.answer, v.citations::jsonb, v.confidence::double precision, v.at, v.frame::jsonb
         FROM (VALUES ${values.join(', ')}) AS v (session_id, question, answer, citations, confidence, at, frame)
         RETURNING session_id, ordinal`,
        params,
      );
    } catch {
      // One at a time: a new session's row first (on its own), then the turn.
      for (const { session, turn, row, stored, failed } of batch) {
        try {
          if (row) {
            // writeRows settles the row's own promise, which the turn then waits for.
            await this.writeRows([row]);
            await this.rowWritten.get(session);
          }
          await this.insertTurn(session, turn);
          stored();
        } catch (error) {
          failed(error);
        }
      }
      return;
    }
    for (const row of newRows) row.written();
    const ordinals = new Map(rows.map((row) => [row.session_id, row.ordinal]));
    for (const { session, turn, stored } of batch) {
      session.turns[ordinals.get(session.id)! - 1] = turn;
      stored();
    }
  }

  /** One turn alone, after the session's last one. */
  private async insertTurn(session: Session, turn: SessionTurn): Promise<void> {
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
    await this.persist(session);
    await this.db.query('UPDATE ask_sessions SET is_public = $2 WHERE id = $1', [session.id, isPublic]);
    session.isPublic = isPublic;
  }

  async get(id: string): Promise<Session | undefined> {
    // A session announced in a stream still under way: its row is written now, and read after.
    this.queueRow(id);
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
