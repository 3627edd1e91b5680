/**
 * `npm run bench:verification` — what claim verification costs, and how soon an answer starts
 * with a model. Figures, not assertions.
 *   1. verify_ms_p95: the verifier's time per sentence (judging one completed sentence, as the
 *      stream does), over the extractive composer's answers to every golden question.
 *   2. Time to first byte and to the first answer text, 40 streamed asks each: the service
 *      answering with the extractive composer, and the same service answering with the scripted
 *      model (test/support/scripted-model.ts, streaming a token every 20 ms, as a local model on
 *      a laptop might), both in their own process, pace 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ClaimVerifier, evidenceFrom, StreamingVerifier } from '../../src/service/answers/claim-verifier';
import { buildGoldenSet } from '../../eval/golden';
import { startEvalService } from '../../eval/service';
import { startScriptedModel } from '../support/scripted-model';

export interface VerificationBenchResult {
  verify_ms: { sentences: number; p50: number; p95: number; max: number };
  first_byte_ms: { extractive: { p50: number; p95: number }; model: { p50: number; p95: number } };
  first_text_ms: { extractive: { p50: number; p95: number }; model: { p50: number; p95: number } };
}

const RUNS = 40;
const QUESTIONS = ['How fast is quick commerce growing in Bengaluru?', 'How many stores does DMart have?', "What was Tanishq's revenue last quarter?", 'Zepto dark stores in Pune'];
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0) * 1000) / 1000;
};

async function spawnService(args: string[], dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli.ts', '--port', '0', '--pace-ms', '0', '--no-live', '--ask-limit', '1000000', '--data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`service exited ${code}`)));
  });
  return { url, child };
}

/** From sending the ask: the first body byte, and the first content_block_delta carrying text. */
async function firstBytes(url: string, question: string): Promise<{ byte: number; text: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: question }], stream: true }) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let byte = -1;
  let text = -1;
  let seen = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (byte < 0) byte = performance.now() - started;
    if (text < 0) {
      seen += decoder.decode(value, { stream: true });
      if (/event: content_block_delta\ndata: \{[^\n]*"text":"[^"]/.test(seen)) text = performance.now() - started;
    }
  }
  return { byte, text };
}

export async function benchVerification(): Promise<{ table: string; result: VerificationBenchResult }> {
  // 1. The verifier per sentence, on the extractive composer's golden answers.
  const service = await startEvalService();
  const timings: number[] = [];
  try {
    for (const item of buildGoldenSet(service.store.truth)) {
      let sessionId: string | undefined;
      let body: { content: string; citations: string[]; session_id: string } | null = null;
      for (const turn of item.turns) {
        const response = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: turn }], ...(sessionId ? { session_id: sessionId } : {}) }) });
        body = (await response.json()) as typeof body;
        sessionId = body!.session_id;
      }
      const evidence = evidenceFrom(body!.citations.map((id) => service.store.getSignal(id)!), (id) => service.store.sourcesById.get(id)?.name);
      const stream = new StreamingVerifier(new ClaimVerifier(evidence));
      // Fed as the stream feeds it: a few words at a time.
      for (const piece of body!.content.match(/\S+\s*|\s+/g) ?? []) stream.push(piece);
      stream.end();
      timings.push(...stream.timings);
    }
  } finally {
    await service.close();
  }

  // 2. First byte and first text, extractive and scripted model.
  const model = await startScriptedModel({ script: 'good', chunkMs: 20 });
  const dir = await mkdtemp(join(tmpdir(), 'clarity-verify-bench-'));
  // One data directory each: an embedded database belongs to one service process.
  const extractive = await spawnService([], join(dir, 'extractive'));
  const withModel = await spawnService(['--model-url', model.url, '--model', 'scripted'], join(dir, 'model'));
  const runs = { extractive: [] as Array<{ byte: number; text: number }>, model: [] as Array<{ byte: number; text: number }> };
  try {
    for (let i = 0; i < 4; i += 1) {
      await firstBytes(extractive.url, QUESTIONS[i]!);
      await firstBytes(withModel.url, QUESTIONS[i]!);
    }
    for (let i = 0; i < RUNS; i += 1) {
      runs.extractive.push(await firstBytes(extractive.url, QUESTIONS[i % QUESTIONS.length]!));
      runs.model.push(await firstBytes(withModel.url, QUESTIONS[i % QUESTIONS.length]!));
    }
  } finally {
    extractive.child.kill();
    withModel.child.kill();
    await model.close();
    await rm(dir, { recursive: true, force: true });
  }
  const stat = (values: number[]): { p50: number; p95: number } => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
  const result: VerificationBenchResult = {
    verify_ms: { sentences: timings.length, p50: percentile(timings, 50), p95: percentile(timings, 95), max: percentile(timings, 100) },
    first_byte_ms: { extractive: stat(runs.extractive.map((r) => r.byte)), model: stat(runs.model.map((r) => r.byte)) },
    first_text_ms: { extractive: stat(runs.extractive.map((r) => r.text)), model: stat(runs.model.map((r) => r.text)) },
  };
  const table = [
    '| Figure | Extractive composer | Scripted model (a token every 20 ms) | Target |',
    '|---|---:|---:|---|',
    `| verify_ms_p95: verifying one sentence, p50 / p95 / max (ms, ${result.verify_ms.sentences} sentences of the golden answers) | ${result.verify_ms.p50} / ${result.verify_ms.p95} / ${result.verify_ms.max} | | p95 ≤ 2 |`,
    `| Time to first byte, p50 / p95 (ms, ${RUNS} asks each) | ${result.first_byte_ms.extractive.p50} / ${result.first_byte_ms.extractive.p95} | ${result.first_byte_ms.model.p50} / ${result.first_byte_ms.model.p95} | |`,
    `| Time to the first answer text (first verified sentence), p50 / p95 (ms) | ${result.first_text_ms.extractive.p50} / ${result.first_text_ms.extractive.p95} | ${result.first_text_ms.model.p50} / ${result.first_text_ms.model.p95} | |`,
  ].join('\n');
  return { table, result };
}

if (process.argv[1]?.endsWith('verification-bench.ts')) console.log((await benchVerification()).table);
