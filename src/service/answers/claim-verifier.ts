/**
 * Claim-level verification, the same for every composer (decision 6, and 38 for bindings): an
 * answer is split into sentences (sentences.ts), its citation markers read in every form a model
 * writes (citation-markers.ts), and each sentence's claims (claim-extraction.ts) must be stated
 * by a signal the sentence itself cites: a figure for the same subject, metric, direction and
 * period (claim-binding.ts, signal-evidence.ts), its dates, names and links. A citation id that
 * is not in the evidence is dropped; a sentence left with claims and no valid citation of its
 * own fails. Headings, connectives and help text the extractive composer marks by role make no
 * claim; a model's headings are checked for their figures and names against the evidence.
 */
import { DEFAULT_TIME_ZONE, isoDayIn } from '../world/time-zone';
import { bindingMismatch, bindFigures, type FigureBinding } from './claim-binding';
import { extractClaims, type Extracted, type Figure } from './claim-extraction';
import { ANY_MARKER } from './citation-markers';
import type { Piece } from './sentences';
import { computedFigure, entitySupported, factsOf, figureMatches, sameSubject, type EvidenceFacts, type EvidenceSignal, type StatedFigure } from './signal-evidence';

export { segment, type Piece } from './sentences';
export { extractClaims, knownNameKey } from './claim-extraction';
export { evidenceFrom, withoutInstructions, type EvidenceSignal } from './signal-evidence';
export { normaliseCitations } from './citation-markers';

export type ClaimKind = 'figure' | 'date' | 'entity';
export interface Claim {
  kind: ClaimKind;
  /** As written in the sentence ("₹9,892 crore", "5 Oct 2026", "Zepto"). */
  text: string;
}

export interface SentenceVerdict {
  /** The sentence as written, markers (normalised) included, trailing whitespace excluded. */
  text: string;
  ok: boolean;
  /** Why it failed, in words a reader understands. */
  reason?: string;
  /** Cited ids that are in the evidence (the sentence's own; a composer's run for its lead-ins). */
  citations: string[];
  /** Ids the sentence cites that are not in the evidence; dropped from the answer. */
  dropped: string[];
  claims: Claim[];
  /** Where each supporting signal states the claims: offsets into the signal's body. */
  support: Array<{ citation: string; start: number; end: number }>;
  /** Headings, coverage statements, structure, sentences without claims: nothing to check. */
  exempt: boolean;
}

export interface Verification {
  sentences: number;
  supported: number;
  removed: Array<{ text: string; reason: string }>;
}

export type UnsupportedClaims = 'remove' | 'mark';

/** Statements that the signals do not cover something: no signal could support them. */
const COVERAGE_STATEMENT =
  /^\W*(?:no (?:signal|single figure|festive-season figures|figures|funding|results)\b|none of the signals|the signals (?:report|have|do not|don't|say nothing)|the service (?:has no signals|follows|cannot)|it follows \d+ indian retailers|reading ".*" as|following on from your previous question|[^:]{1,80}: no signal names|[^.:]{1,60} has no [^.:]{1,40} (?:results|figures|signals) yet\b)/i;

function plain(text: string): string {
  return text.replace(ANY_MARKER, '').replace(/[*_`>#|]/g, ' ').replace(/^\s*[-+]\s/, ' ').replace(/\s+/g, ' ').trim();
}

/** Period words of a date claim (not a day or a bare year, which a signal's publication covers). */
const isPeriodKey = (key: string): boolean => /^(?:quarter|fy|festival|month):/.test(key);

export class ClaimVerifier {
  private readonly evidence: Map<string, EvidenceSignal>;

  /** Dates the question itself set (the period asked, today): stating them claims nothing. */
  private readonly contextDates: Set<string>;

  /** The analyst's time zone (default Asia/Kolkata): the calendar the answer's dates are in. */
  private readonly zone: string;

  constructor(evidence: Iterable<EvidenceSignal>, options: { contextDates?: Iterable<string | number | Date>; question?: string; timeZone?: string } = {}) {
    this.zone = options.timeZone ?? DEFAULT_TIME_ZONE;
    this.evidence = new Map([...evidence].map((signal) => [signal.id, signal]));
    // The periods the question names ("Q4 FY27", "Diwali 2026") are the question's, not claims.
    this.contextDates = new Set(options.question ? extractClaims(options.question).dates.map((date) => date.key) : []);
    for (const value of options.contextDates ?? []) {
      const date = new Date(value);
      if (Number.isNaN(date.getTime())) continue;
      const day = isoDayIn(date.getTime(), this.zone);
      this.contextDates.add(`day:${day}`);
      this.contextDates.add(`dayofyear:${day.slice(5)}`);
    }
  }

  has(id: string): boolean {
    return this.evidence.has(id);
  }

  /** The evidence's ids in the order the model was given them (`[2]` is the second). */
  get ids(): string[] {
    return [...this.evidence.keys()];
  }

  /** Where a signal came from (for confidence: how many sources an answer rests on). */
  sourceOf(id: string): string | undefined {
    return this.evidence.get(id)?.source_name;
  }

  /** The ids a sentence cites, split into those in the evidence and those not. */
  citationsOf(text: string): { valid: string[]; dropped: string[] } {
    const valid: string[] = [];
    const dropped: string[] = [];
    for (const [, id] of text.matchAll(ANY_MARKER)) {
      const list = this.evidence.has(id!) ? valid : dropped;
      if (!list.includes(id!)) list.push(id!);
    }
    return { valid, dropped };
  }

  /**
   * Judges one sentence on its own markers. `borrowed`: the citations of the run a composer's
   * lead-in introduces (the extractive composer's only); `structure`: the composer marked it as
   * a heading, connective or help text.
   */
  judge(text: string, kind: Piece['kind'], borrowed: string[] = [], structure = false): SentenceVerdict {
    const { valid: own, dropped } = this.citationsOf(text);
    const trimmed = text.trimEnd();
    const claimsOf = extractClaims(trimmed);
    const claims: Claim[] = [
      ...claimsOf.figures.map((figure) => ({ kind: 'figure' as const, text: figure.text })),
      ...claimsOf.dates.map((date) => ({ kind: 'date' as const, text: date.text })),
      ...claimsOf.entities.map((entity) => ({ kind: 'entity' as const, text: entity.text })),
    ];
    const citations = own.length > 0 || dropped.length > 0 ? own : borrowed;
    const verdict = (ok: boolean, exempt: boolean, reason?: string, support: SentenceVerdict['support'] = []): SentenceVerdict => ({
      text: trimmed,
      ok,
      ...(reason ? { reason } : {}),
      citations,
      dropped,
      claims,
      support,
      exempt,
    });
    if (structure || kind === 'blank') return verdict(true, true);
    // Nothing to check; the signals it cites (or its run's) still show where it comes from.
    if (claims.length === 0) return verdict(true, true, undefined, dropped.length === 0 && citations.length > 0 ? this.spans(citations, claimsOf, new Map()) : []);
    const hasLink = claimsOf.entities.some((entity) => entity.key.startsWith('link:'));
    // A heading is structure: it cites nothing, and what it names or states must be in the evidence.
    if (kind === 'heading' && own.length === 0 && dropped.length === 0) return this.judgeHeading(claimsOf, verdict);
    // A table row may name things, and a statement that the signals do not cover something may
    // name both, without a citation; none may state a figure or a link unchecked. The one figure
    // allowed is in the coverage phrase itself ("It follows 40 Indian retailers": the roster).
    const exemptStructure = !hasLink && own.length === 0 && claimsOf.figures.length === 0 && kind === 'table_row' && claimsOf.dates.length === 0;
    const coverage = COVERAGE_STATEMENT.exec(plain(trimmed));
    const exemptCoverage = coverage !== null && !hasLink && extractClaims(plain(trimmed).slice(coverage[0].length)).figures.length === 0;
    if ((exemptStructure || exemptCoverage) && dropped.length === 0) return verdict(true, true, undefined, citations.length > 0 ? this.spans(citations, claimsOf, new Map()) : []);
    if (citations.length === 0) {
      return verdict(false, false, dropped.length > 0 ? `cites ${dropped.join(', ')}, which ${dropped.length === 1 ? 'is' : 'are'} not among the signals retrieved for this question` : 'makes a claim without citing a signal');
    }
    const evidence = citations.map((id) => factsOf(this.evidence.get(id)!, this.zone));
    const bound = new Map<EvidenceFacts, StatedFigure[]>();
    const missing: string[] = [];
    const mismatches: string[] = [];
    const bindings = bindFigures(trimmed, 0, trimmed.length, claimsOf, 'claim');
    // A name the vocabulary does not know binds only when a cited signal has it as a player ("Festive-season sales…" names none).
    const players = new Set(evidence.flatMap((facts) => facts.stated.flatMap((stated) => stated.binding.subjects)));
    for (const figure of claimsOf.figures) {
      const binding = bindings.get(figure)!;
      const subject = binding.subjects[0];
      const found = this.bindFigure(figure, subject?.startsWith('name:') && !players.has(subject) ? { ...binding, subjects: [] } : binding, evidence);
      if ('facts' in found) bound.set(found.facts, [...(bound.get(found.facts) ?? []), ...(found.stated ? [found.stated] : [])]);
      else if (found.mismatch) mismatches.push(found.mismatch);
      else missing.push(figure.text);
    }
    const figureSignals = [...bound.keys()];
    for (const date of claimsOf.dates) {
      if (this.contextDates.has(date.key)) continue;
      // A period the sentence names must be the period of the signal that states its figures.
      const pool = isPeriodKey(date.key) && figureSignals.length > 0 ? figureSignals : evidence;
      const facts = pool.find((candidate) => candidate.dateKeys.has(date.key));
      if (facts) {
        if (!bound.has(facts)) bound.set(facts, []);
        continue;
      }
      const periods = [...new Set(pool.map((candidate) => candidate.signal.period).filter((period): period is string => Boolean(period)))];
      if (isPeriodKey(date.key) && periods.length > 0) mismatches.push(`the cited signal${pool.length === 1 ? ' gives figures' : 's give figures'} for ${periods.join(' and ')}, not ${date.text}`);
      else missing.push(date.text);
    }
    for (const entity of claimsOf.entities) {
      const facts = entitySupported(entity.key, entity.text, evidence);
      if (facts) {
        if (!bound.has(facts)) bound.set(facts, []);
      } else missing.push(entity.text);
    }
    if (missing.length > 0 || mismatches.length > 0) {
      const cited = citations.join(', ');
      const what = missing.map((item) => `"${item}"`).join(', ');
      const prefix = dropped.length > 0 ? `cites ${dropped.join(', ')}, not among the signals retrieved; ` : '';
      const reasons = [...mismatches, ...(missing.length > 0 ? [`${what} ${missing.length === 1 ? 'does' : 'do'} not appear in the cited signal${citations.length === 1 ? '' : 's'} (${cited})`] : [])];
      return verdict(false, false, `${prefix}${reasons.join('; ')}`);
    }
    return verdict(true, false, undefined, this.spans(citations, claimsOf, bound));
  }

  /**
   * The stated figure a claimed one binds to: same value, subject, metric, direction and basis
   * in one of the cited signals; or, stated nowhere, computed from them. A value stated for
   * something else is a mismatch, named.
   */
  private bindFigure(figure: Figure, claim: FigureBinding, evidence: EvidenceFacts[]): { facts: EvidenceFacts; stated?: StatedFigure } | { mismatch?: string } {
    let mismatch: string | undefined;
    for (const facts of evidence) {
      for (const stated of facts.stated) {
        if (!figureMatches(figure, stated.figure)) continue;
        const wrong = bindingMismatch(claim, stated.binding, sameSubject);
        if (!wrong) return { facts, stated };
        if (mismatch) continue;
        const value = stated.figure.text;
        mismatch =
          wrong.axis === 'subject'
            ? `the cited signal gives ${value} to ${wrong.stated}, not ${wrong.claimed}`
            : wrong.axis === 'period'
              ? `the cited signal gives ${value} ${wrong.stated}, not ${wrong.claimed}`
              : `the cited signal gives ${value} as ${wrong.stated}, not ${wrong.claimed}`;
      }
    }
    if (mismatch) return { mismatch };
    const computed = computedFigure(figure, evidence);
    return computed ? { facts: computed } : {};
  }

  /** A model's heading: its figures and names must be in some signal of the evidence; it needs no citation. */
  private judgeHeading(claimsOf: Extracted, verdict: (ok: boolean, exempt: boolean, reason?: string) => SentenceVerdict): SentenceVerdict {
    const all = [...this.evidence.values()].map((signal) => factsOf(signal, this.zone));
    const missing = [
      ...claimsOf.figures.filter((figure) => !all.some((facts) => facts.figures.some((stated) => figureMatches(figure, stated)))).map((figure) => figure.text),
      ...claimsOf.entities.filter((entity) => !entitySupported(entity.key, entity.text, all)).map((entity) => entity.text),
    ];
    if (missing.length === 0) return verdict(true, true);
    return verdict(false, false, `the heading states ${missing.map((item) => `"${item}"`).join(', ')}, which no signal given for this question does`);
  }

  /** For each cited signal that supports the sentence: the sentence of its body where the claims are bound. */
  private spans(citations: string[], claims: Extracted, bound: Map<EvidenceFacts, StatedFigure[]>): SentenceVerdict['support'] {
    const support: SentenceVerdict['support'] = [];
    for (const id of citations) {
      const facts = factsOf(this.evidence.get(id)!, this.zone);
      if (bound.size > 0 && !bound.has(facts)) continue;
      const place = bound.get(facts)?.find((stated) => stated.in === 'body');
      let best = place ? facts.bodySentences.find((sentence) => place.figure.at >= sentence.start && place.figure.at < sentence.end) : undefined;
      if (!best) {
        let bestScore = -1;
        for (const sentence of facts.bodySentences) {
          let score = 0;
          for (const figure of facts.bodyClaims.figures) if (figure.at >= sentence.start && figure.at < sentence.end && claims.figures.some((claim) => figureMatches(claim, figure))) score += 2;
          for (const entity of facts.bodyClaims.entities) if (entity.at >= sentence.start && entity.at < sentence.end && claims.entities.some((claim) => claim.key === entity.key)) score += 1;
          if (score > bestScore) {
            best = sentence;
            bestScore = score;
          }
        }
      }
      if (best) {
        const textOf = facts.signal.body.slice(best.start, best.end);
        support.push({ citation: id, start: best.start, end: best.start + textOf.trimEnd().length });
      }
    }
    return support;
  }
}

export { StreamingVerifier, verifyAnswer, tidy, type VerifiedPiece, type StreamOptions } from './streaming-verifier';

/** Confidence after verification (the extractive composer's): every removed claim costs, in proportion to the answer. */
export function verifiedConfidence(confidence: number, verification: Verification): number {
  if (verification.sentences === 0) return confidence;
  const removedShare = verification.removed.length / verification.sentences;
  const factor = verification.removed.length === 0 ? 1 : Math.max(0.2, 0.85 - removedShare);
  return Math.round(confidence * factor * 100) / 100;
}

/** What a model's answer kept, for its confidence. */
export interface KeptClaims {
  /** Sentences with claims that were kept (supported), and removed. */
  supported: number;
  removed: number;
  signals: number;
  sources: number;
}

/**
 * A model answer's confidence follows what it kept: the share of its claims supported, and how
 * many distinct signals and sources those rest on (two sentences from one signal are not a full
 * answer from six), never above what the extractive composer's evidence gives.
 */
export function modelConfidence(ceiling: number, kept: KeptClaims): number {
  const claims = kept.supported + kept.removed;
  if (claims === 0 || kept.supported === 0) return Math.round(Math.min(ceiling, 0.1) * 100) / 100;
  const share = kept.supported / claims;
  const breadth = 0.4 + 0.35 * Math.min(1, kept.signals / 4) + 0.25 * Math.min(1, kept.sources / 3);
  const removedCost = kept.removed === 0 ? 1 : Math.max(0.2, 0.9 - 0.5 * (1 - share));
  return Math.round(Math.min(ceiling, ceiling * share * breadth * removedCost) * 100) / 100;
}
