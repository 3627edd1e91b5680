/**
 * Issue 45: a model that writes the way small local models do (swaps a figure's subject, its
 * direction or its period, leaves a sentence uncited beside a cited one, cites in every form,
 * stalls after a kept sentence, writes nothing supported) gets exactly its supported sentences
 * through, with chips, the same over JSON and SSE: the real service, a scripted model over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignalStore, type RunningService } from '../../src/service/server';
import { ask, parseSseText, postJson, startTestService } from '../support/local-service';
import { evidenceInPrompt, panelSwap, startScriptedModel, type ScriptedModel, type Script } from '../support/scripted-model';

const QUESTION = 'How fast is quick commerce growing in Bengaluru?';
let model: ScriptedModel;
let service: RunningService;

interface Answer {
  content: string;
  citations: string[];
  composer: { backend: string; model?: string; local?: boolean; fallback_reason?: string };
  removed: Array<{ text: string; reason: string }>;
}
type Frame = { event: string; data: Record<string, unknown> };

beforeAll(async () => {
  model = await startScriptedModel();
  const store = createSignalStore({ anchor: new Date('2026-11-01T00:00:00Z') });
  service = await startTestService({ store, composer: { unsupportedClaims: 'remove', model: { url: model.url, model: 'scripted-7b', timeoutMs: 2_000, silenceMs: 400 } } });
}, 60_000);
afterAll(async () => {
  await service.close();
  await model.close();
});

async function overJson(script: Script): Promise<Answer & { verification: { sentences: number; supported: number }; confidence: number }> {
  model.script = script;
  const response = await postJson(`${service.url}/api/v1/ask`, ask(QUESTION));
  expect(response.status).toBe(200);
  const body = (await response.json()) as Answer & { verification: { sentences: number; supported: number; removed: Answer['removed'] }; confidence: number };
  return { ...body, removed: body.verification.removed };
}

/** The answer an app reading the stream ends with: text after the last replacement, chips, removals, composer. */
async function overSse(script: Script): Promise<Answer & { frames: Frame[]; announced: string[] }> {
  model.script = script;
  const response = await postJson(`${service.url}/api/v1/ask`, ask(QUESTION, { stream: true }));
  expect(response.status).toBe(200);
  const frames = parseSseText(await response.text()) as Frame[];
  expect(frames.at(-1)!.event).toBe('message_stop');
  let content = '';
  let announced: string[] = [];
  let composer = (frames[0]!.data.message as { composer: Answer['composer'] }).composer;
  const removed: Answer['removed'] = [];
  for (const frame of frames) {
    if (frame.event === 'content_block_delta') content += (frame.data.delta as { text: string }).text;
    if (frame.event === 'clarity.citation_emitted') announced.push((frame.data.citation as { id: string }).id);
    if (frame.event === 'clarity.claim_removed') removed.push({ text: frame.data.text as string, reason: frame.data.reason as string });
    if (frame.event === 'clarity.composer_fallback') {
      composer = { ...composer, backend: 'extractive', fallback_reason: frame.data.reason as string };
      if (frame.data.replaces_text === true) {
        content = '';
        announced = [];
      }
    }
  }
  const citations = [...new Set([...content.matchAll(/\[(sig_[0-9a-f]{16})\]/g)].map((match) => match[1]!))];
  return { content, citations, composer, removed, frames, announced };
}

/** Both transports end with the same answer; returns the JSON one. */
async function both(script: Script): Promise<Awaited<ReturnType<typeof overJson>> & { sse: Awaited<ReturnType<typeof overSse>> }> {
  const json = await overJson(script);
  const sse = await overSse(script);
  expect(sse.content).toBe(json.content);
  expect(sse.citations).toEqual(json.citations);
  expect(sse.removed).toEqual(json.removed);
  expect(sse.composer).toEqual(json.composer);
  // Every chip in the shown text was announced before it.
  for (const id of sse.citations) expect(sse.announced).toContain(id);
  // No citation form but the canonical marker reaches the text.
  for (const answer of [json.content, sse.content]) expect(answer).not.toMatch(/\(sig_|【|\[\d+\]|sig_[0-9a-f]{16},|\[sig_[0-9a-f]{16}\]\[/);
  return { ...json, sse };
}

const promptEvidence = (): ReturnType<typeof evidenceInPrompt> => evidenceInPrompt(model.requests.at(-1)!.body.messages.at(-1)!.content);

describe('a figure bound to the wrong subject, direction or period is removed, with the mismatch named', () => {
  it('swap subject: a panel share given to another player of the panel', async () => {
    const answer = await both('swap-subject');
    const { leader, other, share } = panelSwap(promptEvidence());
    expect(answer.composer.backend).toBe('model');
    expect(answer.removed).toHaveLength(1);
    expect(answer.removed[0]!.text).toContain(`${other} leads with ${share}`);
    expect(answer.removed[0]!.reason).toContain(`the cited signal gives ${share} to ${leader}, not ${other}`);
    expect(answer.content).not.toContain(`${other} leads with`);
    expect(answer.verification.supported).toBe(answer.verification.sentences - 1);
  });

  it('swap direction: a rise written as a fall', async () => {
    const answer = await both('swap-direction');
    expect(answer.removed).toHaveLength(1);
    expect(answer.removed[0]!.text).toMatch(/shrank/);
    expect(answer.removed[0]!.reason).toMatch(/the cited signal gives [\d.]+% as a rise, not a fall/);
    expect(answer.content).not.toMatch(/shrank/);
  });

  it('swap period: another quarter than the one the signal reports', async () => {
    const answer = await both('swap-period');
    expect(answer.removed).toHaveLength(1);
    expect(answer.removed[0]!.text).toContain('Q4 FY26');
    expect(answer.removed[0]!.reason).toMatch(/gives figures for Q2 FY27, not Q4 FY26/);
    expect(answer.content).not.toContain('Q4 FY26');
  });
});

describe('citations are the sentence’s own', () => {
  it('borrow: an uncited sentence does not ride on the next sentence’s citation', async () => {
    const answer = await both('borrow');
    const reasons = answer.removed.map((removed) => removed.reason);
    expect(reasons).toContain('makes a claim without citing a signal');
    expect(answer.removed.some((removed) => /987\.6/.test(removed.text))).toBe(true);
    expect(answer.content).not.toMatch(/987\.6/);
    // What is left is the one sentence with its own citation (and the connective).
    expect(answer.citations).toHaveLength(1);
  });

  const forms: Array<{ script: Script; what: string; cited: number }> = [
    { script: 'cite-list', what: '[sig_a, sig_b]', cited: 2 },
    { script: 'cite-adjacent', what: '[sig_a][sig_b]', cited: 2 },
    { script: 'cite-paren', what: '(sig_a)', cited: 2 },
    { script: 'cite-lenticular', what: '【sig_a】', cited: 2 },
    { script: 'cite-numbered', what: '[n], the n-th evidence item', cited: 2 },
  ];
  for (const { script, what, cited } of forms) {
    it(`${what}: read as citations, shown as canonical markers with chips, every sentence kept`, async () => {
      const answer = await both(script);
      expect(answer.removed).toEqual([]);
      expect(answer.composer.backend).toBe('model');
      expect(answer.citations.length).toBeGreaterThanOrEqual(cited);
      const evidence = promptEvidence().map((signal) => signal.id);
      for (const id of answer.citations) expect(evidence).toContain(id);
    });
  }

  it('[n] beyond the evidence resolves to nothing and is stripped; the sentence stands on its valid marker', async () => {
    const answer = await both('cite-unresolved');
    expect(answer.removed).toEqual([]);
    expect(answer.content).not.toMatch(/\[\d+\]/);
    expect(answer.citations).toEqual(promptEvidence().slice(0, 2).map((signal) => signal.id));
  });
});

describe('one answer, two transports', () => {
  it('a stall after kept text: the partial model text is replaced by the extractive answer, not followed by a rule', async () => {
    model.chunkMs = 3;
    try {
      const answer = await both('stall-after-text');
      expect(answer.composer).toMatchObject({ backend: 'extractive', model: 'scripted-7b' });
      expect(answer.composer.fallback_reason).toMatch(/^silence: /);
      expect(answer.content).toMatch(/^## Quick commerce in Bengaluru/);
      expect(answer.content).not.toMatch(/^---$/m);
      expect(answer.content).not.toContain('Here is what the signals say');
      // The stream did send the model's kept sentence first, then said it was replaced.
      const fallback = answer.sse.frames.find((frame) => frame.event === 'clarity.composer_fallback')!;
      expect(fallback.data.replaces_text).toBe(true);
      const before = answer.sse.frames.slice(0, answer.sse.frames.indexOf(fallback)).filter((frame) => frame.event === 'content_block_delta');
      expect(before.map((frame) => (frame.data.delta as { text: string }).text).join('')).toContain('Here is what the signals say');
    } finally {
      model.chunkMs = 0;
    }
  });

  it('a full fallback: both transports list every removed model sentence, then the extractive answer', async () => {
    const answer = await both('full-fallback');
    expect(answer.composer.fallback_reason).toMatch(/^unsupported: none of the model's claims/);
    expect(answer.removed.map((removed) => removed.text)).toEqual([
      expect.stringContaining('987.6%'),
      expect.stringContaining('4,321 dark stores'),
    ]);
    expect(answer.content).toMatch(/^## Quick commerce in Bengaluru/);
    expect(answer.verification.supported).toBe(answer.verification.sentences - 2);
  });
});

describe('confidence follows what a model kept', () => {
  it('an answer of two supported sentences is less sure than the full extractive one; a removal costs more', async () => {
    const extractive = await overJson('rate-limit');
    const good = await overJson('good');
    const swapped = await overJson('swap-subject');
    expect(good.confidence).toBeLessThan(extractive.confidence);
    expect(swapped.confidence).toBeLessThan(good.confidence);
  });
});
