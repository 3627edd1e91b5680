/**
 * One copy of what the open conversation's answers repeat (issue 31, the soak's heap per turn).
 * Every answer reaches the renderer as JSON parsed on its own, so every string in it is a new
 * copy: each citation's source name and id, kind and entity names; a signal cited again in a
 * later answer (its title, snippet, URL, body, entities); each support entry's sentence, which
 * is also in the answer's text. A heap snapshot of the soak (bench/notes.md, round 8) found 8 of
 * the 9.2 KB of strings per asked turn held in citations and support to be such copies.
 *
 * Kept, while the conversation is open: the first citation of each signal (by id), and the short
 * strings many signals share (`vocabulary`). Not a table of every string: one entry per string
 * cost more than a string seen once saves (measured: about +0.8 KB per turn when no string repeats).
 * chat-slice.ts makes a new table for each conversation opened or made, so nothing of a closed
 * conversation is kept. Within the open one the answers are windowed (decision 0028): when the
 * window drops answers, the slice calls `retain` with the answers still held, and the table is
 * rebuilt from them (decision 0032), so it holds what the window's answers hold and no string of
 * a dropped answer; an answer read back later shares with those held then. Values are never
 * changed: a string or a part of a citation is replaced by an equal one.
 */
import type { CitationSnapshot, TurnAnswerState } from '../../../shared/conversation';
import type { TurnEntry, TurnView } from './types';

/** The turn's answer is held (inside the window, decision 0028): a row can render it. */
export const isHeld = (turn: TurnEntry): turn is TurnView => turn.answer !== null;

/** How long one slice of `later` may run: a key pressed meanwhile waits no longer than this. */
const SLICE_MS = 3;
/** Strings this short or shorter are shared by value (source names, kinds, entity names, dates). */
const VOCABULARY_MAX = 64;
/**
 * A backstop beside `retain` (which bounds the table to the window's answers, ≈ 48 in the soak's
 * conversation): sharing a new answer against a table past this many signals, or short strings,
 * starts the table again, so later answers share with later ones only; no value changes. A
 * rebuild by `retain` may pass the caps for a while, with entries its held answers hold anyway.
 */
const SIGNALS_HELD = 400;
const WORDS_HELD = 4_000;

/** A citation's own strings, equal when the same signal is cited again (its details aside). */
const SIGNAL_FIELDS = ['title', 'source_id', 'source_name', 'published_at', 'url', 'slug', 'snippet'] as const;

const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((value, i) => value === b[i]);

export class TurnContent {
  private readonly vocabulary = new Map<string, string>();
  private readonly signals = new Map<string, CitationSnapshot>();
  private closed = false;

  /** The conversation is no longer open: `later` stops, and the table is left to the GC. */
  close(): void {
    this.closed = true;
    this.vocabulary.clear();
    this.signals.clear();
  }

  /** How many signals and short strings the table holds (tests, the soak's heap notes). */
  get size(): { signals: number; words: number } {
    return { signals: this.signals.size, words: this.vocabulary.size };
  }

  /**
   * The table rebuilt from `answers` alone (those the window still holds): what only dropped
   * answers held is let go, so the table never keeps more than the window needs (decision 0032).
   * Nothing of `answers` is changed: their citations were shared through this table when they
   * came, so each is entered as it is (its strings are the held copies already), the first
   * citation of a signal with its details preferred, as `citation` does.
   */
  retain(answers: readonly TurnAnswerState[]): void {
    if (this.closed) return;
    this.vocabulary.clear();
    this.signals.clear();
    for (const answer of answers) {
      for (const citation of answer.citations) {
        const held = this.signals.get(citation.id);
        if (!held || (!held.detail && citation.detail)) this.signals.set(citation.id, citation);
        const fields = citation as Record<string, unknown>;
        for (const field of SIGNAL_FIELDS) if (typeof fields[field] === 'string') this.keep(fields[field]);
        const detail = citation.detail;
        if (!detail) continue;
        for (const list of [detail.entities.retailers, detail.entities.segments, detail.entities.cities, detail.entities.states]) for (const value of list) this.keep(value);
        this.keep(detail.type);
        if (detail.sourceKind !== null) this.keep(detail.sourceKind);
        this.keep(detail.citedAt);
      }
      for (const entry of answer.support ?? []) this.keep(entry.citation);
    }
  }

  /** A short string entered as it is, if not held yet (`retain`: the first copy met stays the held one). */
  private keep(value: string): void {
    if (value.length > VOCABULARY_MAX || this.vocabulary.has(value) || this.vocabulary.size >= WORDS_HELD) return;
    this.vocabulary.set(value, value);
  }

  /** The held copy of a short string (or the string itself, now held); a long one as it is. */
  word(value: string): string {
    if (value.length > VOCABULARY_MAX) return value;
    const held = this.vocabulary.get(value);
    if (held !== undefined) return held;
    if (this.vocabulary.size >= WORDS_HELD) this.vocabulary.clear();
    this.vocabulary.set(value, value);
    return value;
  }

  /**
   * `answer` for each of `answers`, a few ms at a time in tasks of their own: opening a
   * conversation of 1,000 answers is not made slower by it.
   */
  later(answers: readonly TurnAnswerState[]): void {
    let next = 0;
    const slice = (): void => {
      if (this.closed) return;
      const until = performance.now() + SLICE_MS;
      while (next < answers.length && performance.now() < until) this.answer(answers[next++]!);
      if (next < answers.length) setTimeout(slice, 0);
    };
    setTimeout(slice, 0);
  }

  /**
   * A finished answer's citations and support sharing what the conversation already holds, in
   * place. In place because the answer is already in the store (and in the conversation main
   * sent, which the slice keeps as `activeConversation`): new objects would be a second copy
   * while those hold the first, and the values stay equal, so nothing that compares them sees a
   * change. The answer's text and the question are the turn's own: left as they are. A support
   * entry's sentence found as written in the text becomes a slice of the text (V8 shares the
   * text's characters for a slice of 13 characters or more).
   */
  answer(answer: TurnAnswerState): TurnAnswerState {
    for (const citation of answer.citations) this.citation(citation);
    const ids = new Map(answer.citations.map((citation) => [citation.id, citation.id]));
    for (const entry of answer.support ?? []) {
      const at = answer.text.indexOf(entry.sentence);
      if (at >= 0) entry.sentence = answer.text.slice(at, at + entry.sentence.length);
      entry.citation = ids.get(entry.citation) ?? this.word(entry.citation);
    }
    return answer;
  }

  private citation(citation: CitationSnapshot): void {
    const fields = citation as Record<string, unknown>;
    const held = this.signals.get(citation.id) as Record<string, unknown> | undefined;
    // A signal first cited without its details (the lookup failed) is held again once it has them.
    if (!held && this.signals.size >= SIGNALS_HELD) this.signals.clear();
    if (!held || (!held.detail && citation.detail)) this.signals.set(citation.id, citation);
    if (held) {
      citation.id = held.id as string;
      for (const field of SIGNAL_FIELDS) if (typeof fields[field] === 'string' && fields[field] === held[field]) fields[field] = held[field];
    }
    for (const field of SIGNAL_FIELDS) if (typeof fields[field] === 'string') fields[field] = this.word(fields[field]);
    const detail = citation.detail;
    if (!detail) return;
    const heldDetail = held ? (held as CitationSnapshot).detail : undefined;
    if (heldDetail && heldDetail !== detail) {
      if (detail.body === heldDetail.body) detail.body = heldDetail.body;
      const [a, b] = [detail.entities, heldDetail.entities];
      if (sameStrings(a.retailers, b.retailers) && sameStrings(a.segments, b.segments) && sameStrings(a.cities, b.cities) && sameStrings(a.states, b.states)) detail.entities = b;
      const metrics = Object.entries(detail.metrics);
      if (metrics.length === Object.keys(heldDetail.metrics).length && metrics.every(([key, value]) => heldDetail.metrics[key] === value)) detail.metrics = heldDetail.metrics;
    }
    if (!heldDetail || detail.entities !== heldDetail.entities) {
      for (const list of [detail.entities.retailers, detail.entities.segments, detail.entities.cities, detail.entities.states]) for (let i = 0; i < list.length; i += 1) list[i] = this.word(list[i]!);
    }
    detail.type = this.word(detail.type);
    if (detail.sourceKind !== null) detail.sourceKind = this.word(detail.sourceKind);
    detail.citedAt = this.word(detail.citedAt);
  }
}
