/**
 * The client ignores whatever a service sends after `message_stop` (issue 30): deltas,
 * citations, confidence, errors, in the same chunk as the stop or later; none is kept, and the
 * answer ends at the stop without waiting for the connection to close.
 */
import { describe, expect, it } from 'vitest';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import type { AskEvent } from '../../src/shared/bridge-contract';

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const BEFORE = [
  frame('message_start', { message: { id: 'm', session_id: 'ses_1', session_slug: 's' } }),
  frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Kept.' } }),
  frame('message_stop', {}),
].join('');
const AFTER = [
  frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' Not kept.' } }),
  frame('clarity.citation_emitted', { citation: { id: 'sig_00000000000000a1', title: 'Late' } }),
  frame('clarity.confidence_updated', { confidence: 0.9 }),
  frame('error', { error: { error: 'internal', message: 'late failure' } }),
].join('');

/** A service answering with `chunks`, the last left open (the connection never closes). */
function serviceSending(chunks: string[]): typeof fetch {
  return async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        },
      }),
      { status: 200, headers: { 'content-type': 'text/event-stream' } },
    );
}

describe('frames after message_stop', () => {
  it.each([
    ['in the same chunk as the stop', [BEFORE + AFTER]],
    ['in a later chunk, the connection left open', [BEFORE, AFTER]],
  ])('are ignored %s', async (_label, chunks) => {
    const client = new RetailSignalClient({ baseUrl: 'http://127.0.0.1:9', fetch: serviceSending(chunks), stallTimeoutMs: 5_000 });
    const events: AskEvent[] = [];
    const result = await client.askStream({ messages: [{ role: 'user', content: 'Zudio?' }] }, { onEvent: (event) => events.push(event) });
    expect(result).toEqual({ ok: true });
    expect(events.filter((event) => event.type === 'text')).toEqual([{ type: 'text', text: 'Kept.' }]);
    expect(events.some((event) => event.type === 'citation' || event.type === 'confidence')).toBe(false);
  });
});
