import { randomBytes } from 'node:crypto';
import type { QuestionFrame } from './answers/question';
import { slugify } from './corpus/random';

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

/** Conversation sessions: `ses_` + 16 hex ids, URL-safe slugs (DESIGN §3). In memory. */
export class SessionStore {
  private readonly byId = new Map<string, Session>();
  private readonly bySlug = new Map<string, Session>();

  /** Returns the session to continue, or a new one when the id is absent or unknown. */
  open(sessionId: string | undefined, firstQuestion: string, owner: string): Session {
    const existing = sessionId ? this.byId.get(sessionId) : undefined;
    if (existing && existing.owner === owner) return existing;
    const hex = randomBytes(8).toString('hex');
    const session: Session = {
      id: `ses_${hex}`,
      slug: `${slugify(firstQuestion).slice(0, 40) || 'session'}-${hex.slice(0, 6)}`,
      isPublic: false,
      owner,
      turns: [],
    };
    this.byId.set(session.id, session);
    this.bySlug.set(session.slug, session);
    return session;
  }

  get(id: string): Session | undefined {
    return this.byId.get(id);
  }

  getBySlug(slug: string): Session | undefined {
    return this.bySlug.get(slug);
  }
}
