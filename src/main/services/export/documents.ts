/**
 * Builds the one document shape that saving and exporting work on, from what main keeps:
 * an answer (one turn), a whole conversation, a research report, a library item, or a forecast.
 */
import type { ExportSource } from '../../../shared/bridge-contract';
import type { CitationSnapshot, Conversation } from '../../../shared/conversation';
import type { RetailSignalClient } from '../service-client/api-client';
import type { ConversationStore } from '../conversations/conversation-store';
import type { ExportDocument } from './exporter';
import { forecastDocument } from './forecast-document';
import type { LibraryHub } from '../library/library-hub';
import type { ResearchService } from '../research/research-service';

export interface DocumentSources {
  conversations: ConversationStore;
  library: Pick<LibraryHub, 'get'>;
  research: ResearchService | null;
  serviceUrl: () => string | null;
  /** The service's client, to look up a forecast's basis signals (null when not connected). */
  client?: () => RetailSignalClient | null;
  /** The app's display zone: every document's dates are written in it (issue 43 item 4). */
  timeZone?: () => string;
}

function mergeCitations(lists: CitationSnapshot[][]): CitationSnapshot[] {
  const byId = new Map<string, CitationSnapshot>();
  for (const list of lists) for (const citation of list) if (!byId.has(citation.id)) byId.set(citation.id, citation);
  return [...byId.values()];
}

export function conversationDocument(conversation: Conversation): ExportDocument {
  const turns = conversation.turns.filter((turn) => turn.answer.text);
  return {
    title: conversation.title,
    kind: 'conversation',
    createdAt: conversation.createdAt,
    markdown: turns.map((turn) => `## ${turn.question.replace(/\n/g, ' ')}\n\n${turn.answer.text}`).join('\n\n'),
    citations: mergeCitations(turns.map((turn) => turn.answer.citations)),
    meta: { conversationId: conversation.id },
  };
}

/** Null when the source no longer exists, or holds no text yet. Its dates are in the app's display zone. */
export async function buildDocument(source: ExportSource, from: DocumentSources): Promise<ExportDocument | null> {
  const doc = await documentOf(source, from);
  const zone = from.timeZone?.();
  return doc && zone ? { ...doc, timeZone: zone } : doc;
}

async function documentOf(source: ExportSource, from: DocumentSources): Promise<ExportDocument | null> {
  switch (source.kind) {
    case 'library': {
      const item = await from.library.get(source.id);
      return item ? { title: item.title, kind: item.kind, createdAt: item.createdAt, markdown: item.markdown, citations: item.citations, meta: item.meta } : null;
    }
    case 'answer': {
      const conversation = from.conversations.get(source.conversationId);
      const turn = conversation?.turns.find((t) => t.id === source.turnId);
      if (!conversation || !turn || !turn.answer.text) return null;
      return {
        title: turn.question.length > 120 ? `${turn.question.slice(0, 117)}…` : turn.question,
        kind: 'answer',
        createdAt: turn.askedAt,
        markdown: turn.answer.text,
        citations: turn.answer.citations,
        meta: { question: turn.question, confidence: turn.answer.confidence, conversationId: conversation.id, serviceUrl: from.serviceUrl() },
      };
    }
    case 'conversation': {
      const conversation = from.conversations.get(source.conversationId);
      return conversation && conversation.turns.some((t) => t.answer.text) ? { ...conversationDocument(conversation), meta: { conversationId: conversation.id, serviceUrl: from.serviceUrl() } } : null;
    }
    case 'report': {
      const report = await from.research?.report(source.runId);
      if (!report) return null;
      return {
        title: report.topic,
        kind: 'report',
        createdAt: report.createdAt,
        markdown: report.markdown || (report.html ?? '').replace(/<[^>]+>/g, ' '),
        citations: report.citations,
        meta: { topic: report.topic, preset: report.preset, costUsd: report.costUsd, runId: report.runId, serviceUrl: from.serviceUrl(), ...(report.series?.length ? { series: report.series } : {}) },
      };
    }
    case 'forecast':
      return forecastDocument(source, from.client?.() ?? null, from.serviceUrl());
  }
}
