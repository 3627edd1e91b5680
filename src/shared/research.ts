/** Research runs as the app keeps them (main persists them; the renderer lists and opens them). */
import { z } from 'zod';
import { CitationSnapshot } from './conversation';

export const ResearchMode = z.enum(['wait', 'queue']);
export type ResearchMode = z.infer<typeof ResearchMode>;

export const ResearchState = z.enum(['starting', 'running', 'queued', 'completed', 'failed', 'cancelled']);
export type ResearchState = z.infer<typeof ResearchState>;

export const ResearchRunSummarySchema = z.object({
  id: z.string(),
  topic: z.string(),
  preset: z.string(),
  mode: ResearchMode,
  state: ResearchState,
  /** The service's own state while queued runs are polled (queued, running…). */
  remoteState: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  costUsd: z.number().nullable(),
  /** How the cost was reckoned (`local`: written on this machine, nothing bought); absent in older files. */
  costBasis: z.enum(['local', 'model_usage']).nullable().optional(),
  citationCount: z.number().nullable(),
  error: z.string().nullable(),
  /** The error's code when it has one (a credential problem links to Settings); absent in older files. */
  errorCode: z.string().nullable().optional(),
  remoteId: z.string().nullable(),
  statusUrl: z.string().nullable(),
  reportUrl: z.string().nullable(),
  /** The base URL of the service that ran it (reports are fetched from there). */
  serviceUrl: z.string(),
  /** The service's schedule that started it (a scheduled run the app picked up); absent otherwise. */
  scheduleId: z.string().nullable().optional(),
  /** A scheduled run found changes since the last run of its topic and its report is not opened yet (the nav badge). */
  unseenChanges: z.boolean().optional(),
});
export type ResearchRunSummary = z.infer<typeof ResearchRunSummarySchema>;

/** What a report's verification removed, and how many of its sentences were checked and supported. */
export const ReportVerificationSchema = z.object({
  sentences: z.number(),
  supported: z.number(),
  removed: z.array(z.object({ text: z.string(), reason: z.string() })),
});

/** What changed since the previous run of the topic (the service's `changes`). */
export const ReportChangesSchema = z.object({
  previousId: z.string(),
  since: z.string(),
  newSignals: z.array(z.object({ id: z.string(), title: z.string(), publishedAt: z.string() })),
  changedFigures: z.array(z.object({ subject: z.string(), metric: z.string(), before: z.number(), after: z.number(), citations: z.array(z.string()) })),
  resolvedDisagreements: z.array(z.object({ note: z.string() })),
  newDisagreements: z.array(z.object({ note: z.string() })),
});
export type ReportChanges = z.infer<typeof ReportChangesSchema>;

/** What changed in a few words ("2 new signals, 1 figure changed"), or null when nothing did: the `research.changed` condition. */
export function changesInWords(changes: ReportChanges | null | undefined): string | null {
  if (!changes) return null;
  const count = (n: number, one: string, many: string): string | null => (n > 0 ? `${n} ${n === 1 ? one : many}` : null);
  const parts = [
    count(changes.newSignals.length, 'new signal', 'new signals'),
    count(changes.changedFigures.length, 'figure changed', 'figures changed'),
    count(changes.newDisagreements.length, 'new disagreement', 'new disagreements'),
    count(changes.resolvedDisagreements.length, 'disagreement resolved', 'disagreements resolved'),
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(', ') : null;
}

/** A key-figures series the viewer and the exports draw: each point with the signal that states it. */
export const ReportSeriesSchema = z.object({
  title: z.string(),
  kind: z.enum(['over_time', 'by_subject']),
  points: z.array(z.object({ x: z.string(), value: z.number(), citation: z.string() })),
});
export type ReportSeries = z.infer<typeof ReportSeriesSchema>;

export const StoredReportSchema = z.object({
  runId: z.string(),
  topic: z.string(),
  preset: z.string(),
  createdAt: z.string(),
  markdown: z.string(),
  /** Sanitised in the renderer; set when the service sent HTML instead of markdown/JSON. */
  html: z.string().nullable(),
  citations: z.array(CitationSnapshot),
  citationCount: z.number(),
  costUsd: z.number().nullable(),
  /** `local`: written on this machine, nothing bought; `model_usage`: a model's tokens at the operator's prices. Absent in older files. */
  costBasis: z.enum(['local', 'model_usage']).nullable().optional(),
  verification: ReportVerificationSchema.nullable().optional(),
  changes: ReportChangesSchema.nullable().optional(),
  series: z.array(ReportSeriesSchema).optional(),
});
export type StoredReport = z.infer<typeof StoredReportSchema>;
