/**
 * A stream that ends before its answer does lets go of the model's request: an error mid-answer
 * or a cut connection must not leave a remote model generating (and billing) until its timers
 * run out. The real local service asks a scripted OpenAI-compatible server over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { ask, parseSseText, postJson, startTestService } from '../support/local-service';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { pollUntil } from '../support/wait-for';

const QUESTION = 'How fast is quick commerce growing in Bengaluru?';
let model: ScriptedModel;
let service: RunningService;

beforeAll(async () => {
  // A model that takes its time (a piece every 40 ms), as real ones stream tokens.
  model = await startScriptedModel({ chunkMs: 40 });
  service = await startTestService({
    faults: { enabled: true },
    composer: { unsupportedClaims: 'remove', model: { url: model.url, model: 'scripted-7b', apiKey: 'sk-test-scripted-0123456789', timeoutMs: 60_000, silenceMs: 30_000 } },
  });
}, 60_000);
afterAll(async () => {
  await service.close();
  await model.close();
});

const settles = (check: () => boolean, ms: number): Promise<boolean> => pollUntil(check, (held) => held, { timeout: ms });

describe('a stream cut short by the service closes the model request at once', () => {
  it('an error mid-answer: the client gets the error event, and the model request is closed long before its timers', async () => {
    const before = model.cutShort;
    const response = await postJson(`${service.url}/api/v1/ask`, ask(`${QUESTION} [fault:stream-error]`, { stream: true }));
    expect(response.status).toBe(200);
    const frames = parseSseText(await response.text());
    expect(frames.at(-1)?.event).toBe('error');
    // The model's answer was still streaming when the error went out; closed within seconds, not
    // after the 30 s silence or 60 s total limits, which an unaborted request waits for.
    expect(await settles(() => model.cutShort > before, 5_000)).toBe(true);
  }, 30_000);
});
