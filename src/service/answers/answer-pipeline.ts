/**
 * One answer, from its composer to the analyst, verified sentence by sentence on the way.
 * The extractive composer's text, or a model's stream, goes through the StreamingVerifier;
 * what comes out is a sequence of events the ask route turns into JSON or SSE frames:
 * verified text, supported spans, removed claims and, when the model fails, the fallback.
 */
import type { CorpusSignal, CorpusSource } from '../world/signal-types';
import type { SearchHit } from '../retrieval/search-index';
import { ClaimVerifier, evidenceFrom, modelConfidence, StreamingVerifier, tidy, verifiedConfidence, type UnsupportedClaims, type Verification, type VerifiedPiece } from './claim-verifier';
import { matchesFrame, type ComposedAnswer } from './composer';
import { findConflicts, isFlagged, type FigureConflict } from './conflicts';
import { withMinusSigns } from '../../shared/format';
import { buildMessages, isLoopback, ModelFailure, streamCompletion, type ChatMessage, type FallbackReason, type ModelConfig } from './model-composer';

export interface ComposerSettings {
  /** Absent: the extractive composer writes every answer (offline, no model). */
  model?: ModelConfig;
  /** `mark` keeps a failing sentence, visibly marked, instead of removing it. */
  unsupportedClaims: UnsupportedClaims;
}

/** How every answer names its composer (JSON `composer`, SSE `message_start.message.composer`). */
export interface ComposerName {
  backend: 'extractive' | 'model';
  model?: string;
  /** The model runs on the service's machine (a loopback URL). */
  local?: boolean;
  /** Set when a model was asked and the extractive composer answered instead. */
  fallback_reason?: string;
}

export interface SupportSpan {
  sentence: string;
  citation: string;
  start: number;
  end: number;
}

export type AnswerEvent =
  | { type: 'text'; text: string }
  | { type: 'supported'; span: SupportSpan }
  | { type: 'removed'; text: string; reason: string }
  /** The model failed; with `replaces`, the model's text already sent is replaced by the extractive answer that follows. */
  | { type: 'fallback'; reason: FallbackReason; message: string; replaces: boolean };

export interface FinalAnswer {
  content: string;
  /** Ids the final content cites, in order of first appearance. */
  citations: string[];
  confidence: number;
  verification: Verification;
  support: SupportSpan[];
  composer: ComposerName;
  /** Conflicting figures among the final citations; each is said in the text too (extension `conflicts`). */
  conflicts: FigureConflict[];
}

const MAX_EVIDENCE = 10;

/** What a model is given: the extractive composer's picks first, then the best other hits about the subject. */
export function evidenceFor(answer: ComposedAnswer, hits: SearchHit[]): CorpusSignal[] {
  const chosen = new Map(answer.citations.map((signal) => [signal.id, signal]));
  for (const hit of hits) {
    if (chosen.size >= MAX_EVIDENCE) break;
    if (!chosen.has(hit.signal.id) && matchesFrame(hit.signal, answer.frame)) chosen.set(hit.signal.id, hit.signal);
  }
  return [...chosen.values()].slice(0, Math.max(MAX_EVIDENCE, answer.citations.length));
}

export interface WriteOptions {
  settings: ComposerSettings;
  /** The extractive answer: written when there is no model, and the fallback when it fails. */
  answer: ComposedAnswer;
  hits: SearchHit[];
  question: string;
  /** Earlier turns of the conversation, for the model. */
  earlier: ChatMessage[];
  sourceName: (sourceId: string) => string | undefined;
  /** The service's sources, for ranking the figures of a conflict. */
  sourcesById?: Map<string, CorpusSource>;
  now: number;
  /** The analyst's time zone: a conflict's day and the dates a claim may state are its calendar's (default Asia/Kolkata). */
  timeZone?: string;
  abort?: AbortSignal;
  /** SSE: what was verified has been sent and stays. JSON: a failed model's text is dropped whole. */
  streaming: boolean;
  /**
   * Awaited between the extractive answer's paragraphs: a stream gives the event loop back there
   * (src/service/answer-turns.ts), so verifying a whole answer is not one long synchronous task.
   */
  between?: () => Promise<void>;
}

/** A part is at least this long (a few sentences): each push re-segments the text so far. */
const MIN_PART = 400;

/**
 * The answer cut after blank lines into parts of a few paragraphs: the verifier takes it part by
 * part as it would a model's stream (it holds back whatever is not yet complete), and yields the
 * same pieces.
 */
export function paragraphs(content: string): string[] {
  const parts: string[] = [];
  let part = '';
  for (const paragraph of content.split(/(?<=\n\n)/)) {
    part += paragraph;
    if (part.length >= MIN_PART) {
      parts.push(part);
      part = '';
    }
  }
  if (part || parts.length === 0) parts.push(part);
  return parts;
}

/**
 * The stream's text tidied as `tidy` tidies the JSON answer (no run of more than two newlines,
 * across pieces too), so both transports end with the same content.
 */
class StreamTidy {
  private newlines = 0;

  tidy(text: string): string {
    let out = '';
    for (const char of text) {
      if (char === '\n') {
        if (this.newlines >= 2) continue;
        this.newlines += 1;
      } else this.newlines = 0;
      out += char;
    }
    return out;
  }

  reset(): void {
    this.newlines = 0;
  }
}

/** Dates the question set: its period's bounds and today. */
function contextDates(answer: ComposedAnswer, now: number): number[] {
  const period = answer.frame.period;
  return period ? [period.startMs, period.endMs, period.endMs - 1, now] : [now];
}

/**
 * Writes the answer as events; returns the final answer. Never yields a byte of a sentence
 * the verifier removes; holds back only the sentence in progress.
 */
export async function* writeAnswer(options: WriteOptions): AsyncGenerator<AnswerEvent, FinalAnswer> {
  const { settings, answer } = options;
  const mode = settings.unsupportedClaims;
  const dates = contextDates(answer, options.now);
  // The extractive composer's own text: its lead-ins rest on their run, its structure is marked by role.
  const extractiveVerifier = (): StreamingVerifier =>
    new StreamingVerifier(new ClaimVerifier(evidenceFrom(answer.citations, options.sourceName), { contextDates: dates, timeZone: options.timeZone }), mode, { runs: true, structure: answer.structure });
  const parts: StreamingVerifier[] = [];
  const sent = new StreamTidy();
  /** A failed model's removed sentences: listed in the answer's verification over both transports. */
  let modelRemoved: Verification['removed'] = [];
  let modelKept: Parameters<typeof modelConfidence>[1] | null = null;
  const support: SupportSpan[] = [];
  const events = function* (pieces: VerifiedPiece[]): Generator<AnswerEvent> {
    for (const piece of pieces) {
      if (piece.kind === 'removed') {
        yield { type: 'removed', text: piece.verdict.text, reason: piece.verdict.reason ?? 'not supported by the cited signals' };
        if (piece.text) yield { type: 'text', text: sent.tidy(withMinusSigns(piece.text)) };
        continue;
      }
      if (piece.kind === 'marked') yield { type: 'removed', text: piece.verdict.text, reason: piece.verdict.reason ?? 'not supported by the cited signals' };
      // The sentence as the analyst sees it in `content` (minus signs typeset), so the app can
      // find it there; the offsets are into the signal's body and do not change.
      const shown = withMinusSigns(piece.verdict.text);
      for (const span of piece.verdict.support) {
        const entry = { sentence: shown, ...span };
        support.push(entry);
        yield { type: 'supported', span: entry };
      }
      if (piece.text) yield { type: 'text', text: sent.tidy(withMinusSigns(piece.text)) };
    }
  };

  let composer: ComposerName = { backend: 'extractive' };
  let useExtractive = !settings.model;
  if (settings.model) {
    const model = settings.model;
    composer = { backend: 'model', model: model.model, local: isLoopback(model.url) };
    const evidence = evidenceFrom(evidenceFor(answer, options.hits), options.sourceName);
    const claimVerifier = new ClaimVerifier(evidence, { contextDates: dates, timeZone: options.timeZone });
    const verifier = new StreamingVerifier(claimVerifier, mode);
    parts.push(verifier);
    let wrote = false;
    let failure: ModelFailure | null = null;
    try {
      for await (const delta of streamCompletion(model, buildMessages(options.question, options.earlier, evidence), options.abort)) {
        for (const event of events(verifier.push(delta))) {
          if (event.type === 'text' && event.text.trim()) wrote = true;
          yield event;
        }
      }
      for (const event of events(verifier.end())) {
        if (event.type === 'text' && event.text.trim()) wrote = true;
        yield event;
      }
      const summary = verifier.summary();
      // Every claim removed, or nothing checkable kept: the analyst gets the extractive answer.
      const kept = verifier.all.filter((piece) => piece.kind === 'kept' && !piece.verdict.exempt);
      if (kept.length === 0) failure = new ModelFailure('unsupported', summary.removed.length > 0 ? `none of the model's claims was supported by the signals it cited (${summary.removed.length} removed)` : "the model's answer made no claim a signal supports");
      const signals = new Set(kept.flatMap((piece) => piece.verdict.citations));
      modelKept = { supported: kept.length, removed: summary.removed.length, signals: signals.size, sources: new Set([...signals].map((id) => claimVerifier.sourceOf(id) ?? id)).size };
    } catch (error) {
      if (!(error instanceof ModelFailure)) throw error;
      failure = error;
    }
    if (failure) {
      composer = { backend: 'extractive', model: model.model, local: isLoopback(model.url), fallback_reason: `${failure.reason}: ${failure.message}` };
      // Both transports end with the same answer: the extractive one alone. A stream that sent
      // the model's text says that it is replaced; the removed sentences stay listed.
      yield { type: 'fallback', reason: failure.reason, message: failure.message, replaces: options.streaming && wrote };
      modelRemoved = verifier.summary().removed;
      sent.reset();
      modelKept = null;
      parts.length = 0;
      support.length = 0;
      useExtractive = true;
    }
  }
  if (useExtractive) {
    const verifier = extractiveVerifier();
    parts.push(verifier);
    const pieces = paragraphs(answer.content);
    for (const [index, piece] of pieces.entries()) {
      if (index > 0) await options.between?.();
      yield* events(verifier.push(piece));
    }
    yield* events(verifier.end());
  }

  let content = tidy(parts.map((part) => withMinusSigns(part.content())).join(''));
  // Two cited figures that conflict are never left side by side without a word: a model's
  // answer (or text the verifier trimmed) that cites both gets the note the extractive one has.
  const known = new Map<string, CorpusSignal>([...options.hits.map((hit) => [hit.signal.id, hit.signal] as const), ...answer.citations.map((signal) => [signal.id, signal] as const)]);
  const cited = [...new Set([...content.matchAll(/\[(sig_[0-9a-f]{16})\]/g)].map((match) => match[1]!))].flatMap((id) => known.get(id) ?? []);
  const conflicts = findConflicts(cited, options.sourcesById ?? new Map(), options.timeZone);
  const flaggedText = content.split('### Sources disagree').slice(1).join('\n');
  const unflagged = conflicts.filter((conflict) => !isFlagged(conflict, flaggedText));
  if (unflagged.length > 0) {
    const note = `\n\n### Sources disagree\n\n${unflagged.map((conflict) => `- ${conflict.note}`).join('\n')}\n`;
    yield { type: 'text', text: sent.tidy(note) };
    content = tidy(`${content}${note}`);
  }
  const written = parts.map((part) => part.summary()).reduce(
    (sum, part) => ({ sentences: sum.sentences + part.sentences, supported: sum.supported + part.supported, removed: [...sum.removed, ...part.removed] }),
    { sentences: 0, supported: 0, removed: [] } as Verification,
  );
  const verification: Verification = { sentences: written.sentences + modelRemoved.length, supported: written.supported, removed: [...modelRemoved, ...written.removed] };
  // A model's answer is as sure as what it kept; the extractive composer's, as its evidence less what was removed.
  const confidence = modelKept ? modelConfidence(answer.confidence, modelKept) : verifiedConfidence(answer.confidence, written);
  const citations: string[] = [];
  for (const [, id] of content.matchAll(/\[(sig_[0-9a-f]{16})\]/g)) if (id && !citations.includes(id)) citations.push(id);
  return { content, citations, confidence, verification, support, composer, conflicts };
}
