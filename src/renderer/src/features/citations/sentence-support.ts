/**
 * Which span of a cited signal supports the sentence a chip belongs to (issue 28). The service
 * reports, per sentence, where each cited signal states its claims (`support`: the sentence as
 * written, the citation, offsets into the signal's body). A chip is the n-th marker of its
 * signal in the answer's text; the sentence around that marker picks the support entry, so the
 * chip of a later sentence highlights that sentence's span, not the first span of the signal.
 */
import { CITATION_MARKER } from '../../../../shared/cite-format';

export interface SupportEntry {
  sentence: string;
  citation: string;
  start: number;
  end: number;
}

/** A marker as a model may write one, valid or not (`[sig_12]`), with the space before it. */
const ANY_MARKER = / ?\[(sig_[^\]\s]{1,40})\]/g;

const plainMinus = (text: string): string => text.replaceAll('\u2212', '-');

/** Offsets of every marker of `citationId` in the text, in order. */
function markerOffsets(text: string, citationId: string): number[] {
  const offsets: number[] = [];
  for (const match of text.matchAll(CITATION_MARKER)) if (match[1] === citationId) offsets.push(match.index);
  return offsets;
}

/**
 * Where each reported sentence sits in the answer's text, in order. A sentence is found as
 * written, or without the markers the verifier dropped (ids not in the evidence, so never
 * among the answer's citations), which is how it was sent.
 */
export function locateSentences(text: string, support: readonly SupportEntry[], cited: ReadonlySet<string>): Map<string, { start: number; end: number }> {
  const located = new Map<string, { start: number; end: number }>();
  // A service may report the sentence with the hyphen-minus the model wrote while the text shows
  // the typeset minus (U+2212): compared without that difference. One code unit for one, so
  // offsets into the shown text stay true.
  const shown = plainMinus(text);
  let cursor = 0;
  for (const { sentence } of support) {
    if (located.has(sentence)) continue;
    // As the verifier drops a marker: ` [id]`, else `[id]` (src/service/answers/claim-verifier.ts).
    const plain = plainMinus(sentence);
    const variants = [plain, plain.replace(ANY_MARKER, (marker: string, id: string) => (cited.has(id) ? marker : ''))];
    for (const variant of variants) {
      const at = variant ? shown.indexOf(variant, cursor) : -1;
      if (at < 0) continue;
      located.set(sentence, { start: at, end: at + variant.length });
      cursor = at + variant.length;
      break;
    }
  }
  return located;
}

/**
 * The support entry for the `occurrence`-th chip (0-based) of `citationId` in the answer: the
 * one for the sentence that holds that marker. Without an occurrence (the citation list), or
 * when the sentence is not one the service reported, the signal's first span: the best there is.
 * Null when the signal supports no sentence (nothing to highlight).
 */
export function supportForChip(text: string, support: readonly SupportEntry[] | undefined, citationId: string, occurrence: number | undefined, cited: ReadonlySet<string>): SupportEntry | null {
  const ofSignal = (support ?? []).filter((entry) => entry.citation === citationId);
  if (ofSignal.length === 0) return null;
  if (occurrence === undefined) return ofSignal[0]!;
  const marker = markerOffsets(text, citationId)[occurrence];
  if (marker === undefined) return ofSignal[0]!;
  const located = locateSentences(text, support!, cited);
  // The sentence whose text holds the marker; of several (never expected), the innermost.
  let best: { entry: SupportEntry; start: number } | null = null;
  for (const entry of ofSignal) {
    const where = located.get(entry.sentence);
    if (where && where.start <= marker && marker < where.end && (!best || where.start > best.start)) best = { entry, start: where.start };
  }
  if (best) return best.entry;
  // The marker's sentence was located but does not rest on this signal: highlight nothing
  // rather than another sentence's span. Not located at all (an older answer): the first span.
  const inAKnownSentence = [...located.values()].some((where) => where.start <= marker && marker < where.end);
  return inAKnownSentence ? null : ofSignal[0]!;
}

/** Which of the chips of its signal a chip is, in the answer's body (0-based). */
export function chipOccurrence(chip: HTMLElement, container: HTMLElement): number {
  const id = chip.dataset.cite;
  const same = [...container.querySelectorAll<HTMLElement>('button.cite-chip[data-cite]')].filter((element) => element.dataset.cite === id);
  return Math.max(0, same.indexOf(chip));
}
