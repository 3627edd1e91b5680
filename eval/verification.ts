/**
 * The `verification` section of `npm run eval`: the claim verifier on a labelled set of
 * sentences built from the corpus (verification-set.ts: each labelled by how it was made, copied
 * or paraphrased from the signal it cites, or made unsupported in one of the ways a model goes
 * wrong, swaps of a figure's subject, measure, direction and period included), scored for
 * precision and recall at removing the unsupported ones, recall per kind of swap, and false
 * removals of supported ones; and the share of the extractive composer's own sentences it keeps,
 * over every golden answer.
 */
import { ClaimVerifier, evidenceFrom, verifyAnswer } from '../src/service/answers/claim-verifier';
import type { SignalStore } from '../src/service/signal-store';
import { buildLabelledSet, SUPPORTED_KINDS, SWAP_KINDS, type SentenceKind } from './verification-set';

export { buildLabelledSet, type LabelledSentence, type SentenceKind } from './verification-set';

export const VERIFICATION_TARGETS = { precision: 0.95, recall: 0.95, swap_recall: 0.9, false_removals: 0.02, extractive_kept: 1 } as const;

export interface VerificationReport {
  sentences: number;
  by_kind: Record<string, { n: number; caught: number }>;
  precision: number;
  recall: number;
  /** Per kind of swap (subject, metric, direction, period): the share removed. */
  swap_recall: Record<string, number>;
  /** Supported sentences (copied, titles, paraphrases) removed, as a share of them. */
  false_removals: number;
  /** The extractive composer's own sentences over the golden answers, and the share kept. */
  extractive: { sentences: number; kept: number; share: number };
  verify_ms_p95: number;
  passed: boolean;
  misses: Array<{ kind: SentenceKind; text: string; reason?: string }>;
}

export function evaluateVerification(store: SignalStore, extractive: { sentences: number; kept: number }): VerificationReport {
  const set = buildLabelledSet(store);
  let truePositive = 0;
  let falsePositive = 0;
  let falseNegative = 0;
  const byKind: VerificationReport['by_kind'] = {};
  const misses: VerificationReport['misses'] = [];
  const timings: number[] = [];
  for (const item of set) {
    const verifier = new ClaimVerifier(evidenceFrom(item.evidence, (id) => store.sourcesById.get(id)?.name));
    const started = performance.now();
    const result = verifyAnswer(item.text, verifier);
    timings.push(performance.now() - started);
    const caught = result.verification.removed.length > 0;
    const entry = (byKind[item.kind] ??= { n: 0, caught: 0 });
    entry.n += 1;
    if (caught) entry.caught += 1;
    if (caught && item.unsupported) truePositive += 1;
    else if (caught) {
      falsePositive += 1;
      misses.push({ kind: item.kind, text: item.text, reason: result.verification.removed[0]?.reason });
    } else if (item.unsupported) {
      falseNegative += 1;
      misses.push({ kind: item.kind, text: item.text });
    }
  }
  timings.sort((a, b) => a - b);
  const swapRecall = Object.fromEntries(SWAP_KINDS.map((kind) => [kind, byKind[kind] ? byKind[kind].caught / byKind[kind].n : 0]));
  const supported = SUPPORTED_KINDS.reduce((sum, kind) => ({ n: sum.n + (byKind[kind]?.n ?? 0), caught: sum.caught + (byKind[kind]?.caught ?? 0) }), { n: 0, caught: 0 });
  const falseRemovals = supported.n === 0 ? 0 : supported.caught / supported.n;
  const precision = truePositive + falsePositive === 0 ? 1 : truePositive / (truePositive + falsePositive);
  const recall = truePositive + falseNegative === 0 ? 1 : truePositive / (truePositive + falseNegative);
  const share = extractive.sentences === 0 ? 1 : extractive.kept / extractive.sentences;
  return {
    sentences: set.length,
    by_kind: byKind,
    precision,
    recall,
    swap_recall: swapRecall,
    false_removals: falseRemovals,
    extractive: { ...extractive, share },
    verify_ms_p95: Math.round((timings[Math.floor(timings.length * 0.95)] ?? 0) * 1000) / 1000,
    passed:
      precision >= VERIFICATION_TARGETS.precision &&
      recall >= VERIFICATION_TARGETS.recall &&
      Object.values(swapRecall).every((value) => value >= VERIFICATION_TARGETS.swap_recall) &&
      falseRemovals <= VERIFICATION_TARGETS.false_removals &&
      share >= VERIFICATION_TARGETS.extractive_kept,
    misses: misses.slice(0, 25),
  };
}

export function verificationMarkdown(report: VerificationReport): string {
  const pct = (value: number): string => `${(value * 100).toFixed(1)}%`;
  const row = (label: string, value: string, target: string, n: number, ok: boolean): string => `| ${label} | ${value} | ${target} | ${n} | ${ok ? 'pass' : 'MISS'} |`;
  const unsupported = Object.entries(report.by_kind).filter(([kind]) => !(SUPPORTED_KINDS as readonly string[]).includes(kind)).reduce((sum, [, v]) => sum + v.n, 0);
  const supportedN = report.sentences - unsupported;
  const kinds = Object.keys(report.by_kind).length - SUPPORTED_KINDS.length;
  return [
    `## Verification`,
    '',
    `The claim verifier on ${report.sentences} labelled sentences built from the corpus (${unsupported} unsupported in ${kinds} ways, ${supportedN} supported: copied, titles and paraphrases), and on the extractive composer's own sentences in every golden answer.`,
    '',
    '| Metric | Result | Target | n | |',
    '|---|---:|---:|---:|---|',
    row('Precision at catching unsupported sentences', pct(report.precision), `≥ ${pct(VERIFICATION_TARGETS.precision)}`, report.sentences, report.precision >= VERIFICATION_TARGETS.precision),
    row('Recall at catching unsupported sentences', pct(report.recall), `≥ ${pct(VERIFICATION_TARGETS.recall)}`, unsupported, report.recall >= VERIFICATION_TARGETS.recall),
    ...SWAP_KINDS.map((kind) =>
      row(`Recall on a ${kind.replace('swapped_', '')} swap`, pct(report.swap_recall[kind] ?? 0), `≥ ${pct(VERIFICATION_TARGETS.swap_recall)}`, report.by_kind[kind]?.n ?? 0, (report.swap_recall[kind] ?? 0) >= VERIFICATION_TARGETS.swap_recall),
    ),
    row('Supported sentences removed (false removals)', pct(report.false_removals), `≤ ${pct(VERIFICATION_TARGETS.false_removals)}`, supportedN, report.false_removals <= VERIFICATION_TARGETS.false_removals),
    row("Extractive composer's sentences kept", pct(report.extractive.share), '100.0%', report.extractive.sentences, report.extractive.share >= VERIFICATION_TARGETS.extractive_kept),
    '',
    `By kind: ${Object.entries(report.by_kind).map(([kind, { n, caught }]) => `${kind} ${caught}/${n} removed`).join(', ')}. Verifying one sentence: p95 ${report.verify_ms_p95} ms.`,
    ...(report.misses.length > 0 ? ['', '### Verifier mistakes', '', ...report.misses.map((miss) => `- ${miss.kind}: ${miss.text}${miss.reason ? ` — ${miss.reason}` : ''}`)] : []),
  ].join('\n');
}
