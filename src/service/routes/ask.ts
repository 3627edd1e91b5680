/**
 * POST /api/v1/ask — JSON (`stream: false`, the default) or SSE (`stream: true`).
 * SSE frames are Anthropic-Messages-shaped with the clarity.* extensions (DESIGN §3).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AskRequest } from '../../shared/service-schemas';
import { composeAnswer, type ComposedAnswer } from '../answers/composer';
import { extractEntities } from '../retrieval/search-index';
import type { Session } from '../session-store';
import { invalidRequest, type ServiceContext } from '../service-context';

export function registerAskRoute(app: FastifyInstance, context: ServiceContext): void {
  app.post('/api/v1/ask', async (request, reply) => {
    const identity = context.identify(request);
    context.enforceLimit('ask', identity.key, reply);
    const parsed = AskRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const { messages, stream, session_id: sessionId } = parsed.data;
    const question = messages[messages.length - 1]!.content;
    const session = context.sessions.open(sessionId, messages[0]!.content, identity.key);
    const query = retrievalQuery(messages.map((message) => message.content), session);
    const now = context.now();
    const hits = context.store.index.search(query, { now, limit: 40 });
    const answer = composeAnswer(question, hits, context.store.sourcesById, now);
    session.turns.push({
      question,
      answer: answer.content,
      citations: answer.citations.map((signal) => signal.id),
      confidence: answer.confidence,
      at: new Date(now).toISOString(),
    });
    if (!stream) {
      return {
        content: answer.content,
        citations: answer.citations.map((signal) => signal.id),
        confidence: answer.confidence,
        session_id: session.id,
        session_slug: session.slug,
      };
    }
    await streamAnswer(reply, context, session, answer);
    return reply;
  });
}

/**
 * A follow-up like "and in Pune?" names little by itself: borrow the entities of earlier
 * turns (from `messages` or the continued session) when the last question lacks them.
 */
function retrievalQuery(contents: string[], session: Session): string {
  const last = contents[contents.length - 1] ?? '';
  const earlier = [...session.turns.map((turn) => turn.question), ...contents.slice(0, -1)];
  const lastEntities = extractEntities(last);
  const named = lastEntities.retailers.length + lastEntities.segments.length + lastEntities.cities.length;
  if (named >= 2 || earlier.length === 0) return last;
  return `${earlier[earlier.length - 1]} ${last}`;
}

/** Splits markdown into deltas of a few words, never splitting a citation marker. */
export function splitIntoDeltas(text: string, wordsPerDelta = 3): string[] {
  const parts = text.match(/\S+\s*|\s+/g) ?? [];
  const deltas: string[] = [];
  for (let i = 0; i < parts.length; i += wordsPerDelta) deltas.push(parts.slice(i, i + wordsPerDelta).join(''));
  return deltas;
}

async function streamAnswer(reply: FastifyReply, context: ServiceContext, session: Session, answer: ComposedAnswer): Promise<void> {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...context.pendingHeaders(reply),
  });
  let closed = false;
  response.on('close', () => {
    closed = true;
  });
  const send = (event: string, data: unknown): void => {
    if (!closed) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const keepAlive = setInterval(() => {
    if (!closed) response.write(': keep-alive\n\n');
  }, 10_000);

  try {
    const messageId = `msg_${randomBytes(8).toString('hex')}`;
    send('message_start', { type: 'message_start', message: { id: messageId, session_id: session.id, session_slug: session.slug } });
    send('clarity.confidence_updated', { type: 'clarity.confidence_updated', confidence: answer.confidenceTrace[0] ?? answer.confidence });
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const byId = new Map(answer.citations.map((signal) => [signal.id, signal]));
    const emitted = new Set<string>();
    for (const delta of splitIntoDeltas(answer.content)) {
      if (closed) return;
      for (const [, id] of delta.matchAll(/\[(sig_[0-9a-f]{16})\]/g)) {
        const signal = id ? byId.get(id) : undefined;
        if (!signal || emitted.has(signal.id)) continue;
        emitted.add(signal.id);
        const source = context.store.sourcesById.get(signal.source_id);
        send('clarity.citation_emitted', {
          type: 'clarity.citation_emitted',
          citation: {
            id: signal.id,
            title: signal.title,
            source_id: signal.source_id,
            source_name: source?.name ?? signal.source_id,
            published_at: signal.published_at,
            url: signal.url,
            slug: signal.slug,
            snippet: signal.summary,
          },
        });
        const confidence = answer.confidenceTrace[emitted.size - 1];
        if (confidence !== undefined && emitted.size > 1) {
          send('clarity.confidence_updated', { type: 'clarity.confidence_updated', confidence });
        }
      }
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta } });
      if (context.paceMs > 0) await delay(context.paceMs);
    }
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    if (answer.promotion) {
      send('clarity.research_promotion_available', { type: 'clarity.research_promotion_available', ...answer.promotion });
    }
    send('message_stop', { type: 'message_stop' });
  } catch (error) {
    send('error', { type: 'error', error: { error: 'internal', message: error instanceof Error ? error.message : 'Internal error' } });
  } finally {
    clearInterval(keepAlive);
    if (!closed) response.end();
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
