/**
 * SSE parsing is identical wherever the byte stream is split: the service's real bytes
 * (with multi-byte characters such as — and ₹) cut at every offset, and again with CRLF line
 * endings, parse to exactly the events of the unsplit stream.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSseStream } from '../../src/main/services/service-client/sse-reader';
import type { RunningService } from '../../src/service/server';
import { ask, postJson, startTestService } from '../support/local-service';

let service: RunningService;
let bytes: Uint8Array;

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function parse(chunks: Uint8Array[]): Promise<EventSourceMessage[]> {
  const messages: EventSourceMessage[] = [];
  await readSseStream(streamOf(chunks), { onMessage: (message) => messages.push(message) });
  return messages;
}

beforeAll(async () => {
  service = await startTestService();
  const response = await postJson(`${service.url}/api/v1/ask`, ask('Tanishq jewellery in Kochi', { stream: true }));
  bytes = new Uint8Array(await response.arrayBuffer());
});
afterAll(() => service.close());

describe('SSE byte stream split at every offset', () => {
  it('has multi-byte characters to split', () => {
    const text = new TextDecoder().decode(bytes);
    expect(text).toMatch(/[—₹]/);
    expect(bytes.length).toBeGreaterThan(new TextDecoder().decode(bytes).length);
  });

  it('parses to identical events at every split point (LF)', async () => {
    const whole = await parse([bytes]);
    expect(whole.length).toBeGreaterThan(20);
    for (let offset = 1; offset < bytes.length; offset += 1) {
      const split = await parse([bytes.subarray(0, offset), bytes.subarray(offset)]);
      if (split.length !== whole.length || JSON.stringify(split) !== JSON.stringify(whole)) {
        expect.fail(`split at byte ${offset} parsed differently`);
      }
    }
  });

  it('parses CRLF streams identically at every split point, including between CR and LF', async () => {
    const crlf = new TextEncoder().encode(new TextDecoder().decode(bytes).replace(/\n/g, '\r\n'));
    const whole = await parse([bytes]);
    for (let offset = 1; offset < crlf.length; offset += 1) {
      const split = await parse([crlf.subarray(0, offset), crlf.subarray(offset)]);
      if (JSON.stringify(split) !== JSON.stringify(whole)) expect.fail(`CRLF split at byte ${offset} parsed differently`);
    }
  });

  it('parses identically when fed one byte at a time', async () => {
    const whole = await parse([bytes]);
    const single = await parse(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)));
    expect(single).toEqual(whole);
  });
});
