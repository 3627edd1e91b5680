/**
 * A research run's work, stage by stage: plan the sections, retrieve per section, write each
 * section (the extractive draft, or the configured model from the same evidence, as asks do),
 * verify every section with the answers' claim verifier, assemble. With a model, the cost is
 * the API's reported token usage at the operator's prices; the extractive composer costs nothing.
 */
import type { CorpusSignal } from '../world/signal-types';
import { ClaimVerifier, evidenceFrom, StreamingVerifier, tidy, type UnsupportedClaims, type Verification } from '../answers/claim-verifier';
import type { ComposerName, ComposerSettings, SupportSpan } from '../answers/answer-pipeline';
import { buildMessages, isLoopback, ModelFailure, streamCompletion, type ModelConfig, type ModelUsage } from '../answers/model-composer';
import { withMinusSigns } from '../../shared/format';
import { metricLabel } from '../../shared/metric-labels';
import { formatDay } from '../answers/composer';
import type { SignalStore } from '../signal-store';
import { draftReport, type FigureSeries, type SectionDraft } from './report-builder';
import { changesSection, changesSince, snapshotOf, type ReportChanges, type RunSnapshot } from './report-changes';
import { aboutTopic, planReport, presetOf, retrieveSection, understandTopic, type SectionKey } from './research-plan';

export type Stage = 'planning' | 'retrieving' | 'writing' | 'verifying' | 'done';
export interface Progress {
  stage: Stage;
  done: number;
  total: number;
}

export interface WrittenReport {
  markdown: string;
  citations: CorpusSignal[];
  verification: Verification;
  support: SupportSpan[];
  composer: ComposerName;
  /** US$: 0 for the extractive composer; usage × prices with a model; null when the operator set no prices. */
  costUsd: number | null;
  costBasis: 'local' | 'model_usage';
  usage: ModelUsage | null;
  series: FigureSeries[];
  sections: Array<{ key: SectionKey | 'changes'; title: string }>;
  changes: ReportChanges | null;
  snapshot: RunSnapshot;
}

export interface WriteReportInput {
  topic: string;
  preset: string;
  store: SignalStore;
  settings: ComposerSettings;
  now: number;
  /** The analyst's time zone: the report's dates are its calendar's (decision 0036). */
  timeZone?: string;
  previous: { id: string; createdAt: string; snapshot: RunSnapshot } | null;
  progress: (progress: Progress) => Promise<void>;
  abort?: AbortSignal;
}

interface WrittenSection {
  draft: SectionDraft;
  text: string;
  /** The signals the text may cite (a model's evidence is wider than the draft's). */
  evidence: CorpusSignal[];
}

/** Null when too few signals match the topic to write a report. */
export async function writeReport(input: WriteReportInput): Promise<WrittenReport | null> {
  const { store, now } = input;
  const preset = presetOf(input.preset);
  await input.progress({ stage: 'planning', done: 0, total: 1 });
  const frame = understandTopic(input.topic, now, (word) => store.index.hasTerm(word));
  const plans = planReport(input.topic, preset);

  // The topic's own hits decide whether there is anything to report; when the topic names no
  // retailer, segment, place or tier, they are also what a section's sub-questions may add.
  const topicHits = store.index.search(input.topic, { now, limit: 200 }).filter((hit) => aboutTopic(hit.signal, frame));
  if (topicHits.length < 2) return null;
  const named = frame.retailers.length + frame.segments.length + frame.cities.length + frame.states.length > 0 || frame.tier !== null;
  const topicIds = new Set(topicHits.map((hit) => hit.signal.id));
  const retrieved = new Map<SectionKey, ReturnType<typeof retrieveSection>>();
  for (const [index, plan] of plans.entries()) {
    await input.progress({ stage: 'retrieving', done: index, total: plans.length });
    const hits = retrieveSection(plan, frame, (query, limit) => store.index.search(query, { now, limit }), preset);
    retrieved.set(plan.key, named ? hits : hits.filter((hit) => topicIds.has(hit.signal.id)));
  }
  const drafts = draftReport(input.topic, frame, plans, retrieved, store.sourcesById, { facts: store.facts, now, healthOf: store.healthOf, ...(input.timeZone ? { timeZone: input.timeZone } : {}) }, preset.maxSignals);
  if (!drafts) return null;

  const changes = input.previous ? changesSince(input.previous, drafts) : null;
  const all: SectionDraft[] = [...drafts.sections];
  if (changes) {
    const section = changesSection(changes, (id) => store.getSignal(id), metricLabel, input.timeZone);
    all.unshift({ key: 'overview', title: `What changed since ${formatDay(changes.since, input.timeZone)}`, question: `What changed about ${input.topic}?`, markdown: section.markdown, evidence: section.evidence });
  }

  const model = input.settings.model;
  let usage: ModelUsage | null = null;
  let composer: ComposerName = model ? { backend: 'model', model: model.model, local: isLoopback(model.url) } : { backend: 'extractive' };
  const failures: string[] = [];
  const written: WrittenSection[] = [];
  let asked = 0;
  for (const [index, draft] of all.entries()) {
    await input.progress({ stage: 'writing', done: index, total: all.length });
    // The changes section and the figures table are the drafts' own (a model is not asked to retell a diff or a table).
    const byModel = model && draft.key !== 'key_figures' && !(changes && index === 0);
    if (!byModel) {
      written.push({ draft, text: draft.markdown, evidence: draft.evidence });
      continue;
    }
    const evidence = draft.evidence.slice(0, 10);
    asked += 1;
    try {
      let text = '';
      for await (const delta of streamCompletion(model, buildMessages(`${draft.question} (the "${draft.title}" section of a research report)`, [], evidenceFrom(evidence, (id) => store.sourcesById.get(id)?.name)), input.abort, (reported) => {
        usage = { prompt_tokens: (usage?.prompt_tokens ?? 0) + reported.prompt_tokens, completion_tokens: (usage?.completion_tokens ?? 0) + reported.completion_tokens };
      })) {
        text += delta;
      }
      written.push({ draft, text, evidence });
    } catch (error) {
      if (!(error instanceof ModelFailure)) throw error;
      failures.push(`${draft.title}: ${error.reason}: ${error.message}`);
      written.push({ draft, text: draft.markdown, evidence: draft.evidence });
    }
  }

  const support: SupportSpan[] = [];
  const verification: Verification = { sentences: 0, supported: 0, removed: [] };
  const parts: string[] = [`# ${input.topic}`, ''];
  const dates = [now, ...(frame.period ? [frame.period.startMs, frame.period.endMs, frame.period.endMs - 1] : [])];
  for (const [index, section] of written.entries()) {
    await input.progress({ stage: 'verifying', done: index, total: written.length });
    let checked = verifySection(section.text, section.evidence, store, dates, input.settings.unsupportedClaims, input.timeZone, section.text === section.draft.markdown);
    const keptClaims = checked.keptClaims;
    if (section.text !== section.draft.markdown && !keptClaims) {
      // The model's section made no claim a signal supports: the extractive draft stands in, as for asks.
      failures.push(`${section.draft.title}: unsupported: none of the model's claims was supported by the signals it cited`);
      checked = verifySection(section.draft.markdown, section.draft.evidence, store, dates, input.settings.unsupportedClaims, input.timeZone, true);
    }
    verification.sentences += checked.verification.sentences;
    verification.supported += checked.verification.supported;
    verification.removed.push(...checked.verification.removed);
    support.push(...checked.support);
    parts.push(`## ${section.draft.title}`, '', checked.content.trim(), '');
  }
  parts.push('_Figures are synthetic sample data from the local Retail Signal service._');
  if (model && asked > 0 && failures.length >= asked) {
    composer = { backend: 'extractive', model: model.model, local: isLoopback(model.url), fallback_reason: failures[0]! };
  } else if (model && failures.length > 0) {
    composer = { ...composer, fallback_reason: failures.join('; ') };
  }

  const markdown = tidy(parts.join('\n'));
  const cited = new Set([...markdown.matchAll(/\[(sig_[0-9a-f]{16})\]/g)].map((match) => match[1]!));
  const citations = [...cited].flatMap((id) => store.getSignal(id) ?? []);
  await input.progress({ stage: 'done', done: 1, total: 1 });
  return {
    markdown,
    citations,
    verification,
    support,
    composer,
    costUsd: model ? costOf(usage, model) : 0,
    costBasis: model ? 'model_usage' : 'local',
    usage,
    series: drafts.series,
    sections: written.map((section, index) => ({ key: changes && index === 0 ? 'changes' : section.draft.key, title: section.draft.title })),
    changes,
    snapshot: snapshotOf(drafts),
  };
}

/** Usage × the operator's prices, to the hundredth of a cent; null without prices. */
function costOf(usage: ModelUsage | null, model: ModelConfig): number | null {
  if (!model.prices) return null;
  if (!usage) return 0;
  const cost = (usage.prompt_tokens / 1_000_000) * model.prices.inPerMillionUsd + (usage.completion_tokens / 1_000_000) * model.prices.outPerMillionUsd;
  return Math.round(cost * 1_000_000) / 1_000_000;
}

function verifySection(
  text: string,
  evidence: CorpusSignal[],
  store: SignalStore,
  dates: number[],
  mode: UnsupportedClaims,
  timeZone: string | undefined,
  /** The extractive draft's own text: its lead-ins rest on the run they introduce, as for asks (decision 38). */
  extractive: boolean,
): { content: string; verification: Verification; support: SupportSpan[]; keptClaims: boolean } {
  const verifier = new StreamingVerifier(new ClaimVerifier(evidenceFrom(evidence, (id) => store.sourcesById.get(id)?.name), { contextDates: dates, ...(timeZone ? { timeZone } : {}) }), mode, { runs: extractive });
  verifier.push(text);
  verifier.end();
  const support: SupportSpan[] = [];
  for (const piece of verifier.all) {
    if (piece.kind === 'removed') continue;
    const sentence = withMinusSigns(piece.verdict.text);
    for (const span of piece.verdict.support) support.push({ sentence, ...span });
  }
  return {
    content: withMinusSigns(verifier.content()),
    verification: verifier.summary(),
    support,
    keptClaims: verifier.all.some((piece) => piece.kind === 'kept' && !piece.verdict.exempt),
  };
}
