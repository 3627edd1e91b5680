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
  citationCount: z.number().nullable(),
  error: z.string().nullable(),
  /** The error's code when it has one (a credential problem links to Settings); absent in older files. */
  errorCode: z.string().nullable().optional(),
  remoteId: z.string().nullable(),
  statusUrl: z.string().nullable(),
  reportUrl: z.string().nullable(),
  /** The base URL of the service that ran it (reports are fetched from there). */
  serviceUrl: z.string(),
});
export type ResearchRunSummary = z.infer<typeof ResearchRunSummarySchema>;

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
});
export type StoredReport = z.infer<typeof StoredReportSchema>;
