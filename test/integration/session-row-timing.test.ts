/**
 * A new session's row is written when its ask needs it (its turn, a read by id, a change of its
 * visibility) or as the ask ends, not while later asks are still arriving (session-store.ts;
 * issue 31, 200 streams' first byte). What must not change: a session announced in a stream's
 * message_start is stored even if the stream is cut before its answer, it can be read by id while
 * its first answer is still streaming, and its turn is stored before message_stop. Checked on
 * the real service over HTTP, across a restart from the same data folder.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { ask, parseSseText, postJson, startTestService } from '../support/local-service';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { tempDirs } from '../support/temp-dirs';

const temp = tempDirs('clarity-session-rows-');
afterAll(() => temp.removeAll());
/** A data folder with the migrated empty database a first start leaves (the suite's copy): these tests are about the session's row. */
const usedDir = async (): Promise<string> => seedServiceFolder(await temp.make(), { corpus: false });

interface OpenStream {
  sessionId: string;
  request: ClientRequest;
  /** The rest of the stream's text, once it ends. */
  rest: Promise<string>;
}

/** A streaming ask, resolved as its message_start arrives (the stream goes on). */
const openStream = (service: RunningService, question: string): Promise<OpenStream> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify(ask(question, { stream: true }));
    const request = httpRequest(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, agent: false }, (response) => {
      let text = '';
      let announced = false;
      let ended: (text: string) => void = () => undefined;
      const rest = new Promise<string>((resolveRest) => (ended = resolveRest));
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        if (announced || !text.includes('\n\n')) return;
        announced = true;
        const start = parseSseText(text.slice(0, text.indexOf('\n\n') + 2))[0]!;
        expect(start.event).toBe('message_start');
        resolve({ sessionId: (start.data as { message: { session_id: string } }).message.session_id, request, rest });
      });
      response.on('end', () => ended(text));
      response.on('error', () => ended(text));
    });
    request.on('error', (error) => {
      if (!request.destroyed) reject(error);
    });
    request.end(body);
  });

const visibility = async (service: RunningService, id: string): Promise<{ status: number; turns?: number }> => {
  const response = await postJson(`${service.url}/api/v1/sessions/${id}/visibility`, { public: false });
  return { status: response.status, ...((await response.json()) as { turns?: number }) };
};

describe("a new session's row, written when its ask needs it", () => {
  it('is stored when the stream is cut before its answer, and found after a restart', async () => {
    const dataDir = await usedDir();
    // Paced, so the answer is still being written when the client leaves.
    const first = await startTestService({ dataDir, paceMs: 100 });
    const stream = await openStream(first, 'How fast is quick commerce growing in Bengaluru?');
    stream.request.destroy();
    // Closed at once, as a quit that cuts the streams does: the ask may still be asleep in its
    // pace, and the close writes the row it holds back.
    await first.close();

    const again = await startTestService({ dataDir });
    try {
      expect(await visibility(again, stream.sessionId)).toMatchObject({ status: 200, turns: 0 });
    } finally {
      await again.close();
    }
  }, 60_000);

  it('goes in with its first turn when nothing reads it before, stored once message_stop has arrived', async () => {
    const dataDir = await usedDir();
    const first = await startTestService({ dataDir, paceMs: 5 });
    let sessionId: string;
    try {
      const stream = await openStream(first, 'Reliance Retail quarterly revenue');
      sessionId = stream.sessionId;
      expect(await stream.rest).toContain('event: message_stop');
    } finally {
      await first.close();
    }
    const again = await startTestService({ dataDir });
    try {
      expect(await visibility(again, sessionId)).toMatchObject({ status: 200, turns: 1 });
    } finally {
      await again.close();
    }
  }, 60_000);

  it('is found by id while its first answer still streams, and holds the turn once message_stop has arrived', async () => {
    const service = await startTestService({ dataDir: await usedDir(), paceMs: 20 });
    try {
      const stream = await openStream(service, 'Zudio store openings in tier-2 cities');
      expect(await visibility(service, stream.sessionId)).toMatchObject({ status: 200, turns: 0 });
      const rest = await stream.rest;
      expect(rest).toContain('event: message_stop');
      expect(await visibility(service, stream.sessionId)).toMatchObject({ status: 200, turns: 1 });
    } finally {
      await service.close();
    }
  }, 60_000);
});
