/**
 * `tsx test/bench/ask-equivalence.ts --a <old service.js> [--b <new service.js>]` — asks two
 * builds of the service the same questions (the bench's five and every golden question, its
 * earlier turns in one session) as a stream and as JSON, and compares the bytes. Only what is
 * random by design is masked (session ids, slugs' tails, message ids); everything else, frames,
 * their order and the answers' text, must be identical. For a change to the ask route that must
 * not change any answer (issue 31's first byte work). Prints the differences; exits 1 on any.
 */
import { parseArgs } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildGoldenSet } from '../../eval/golden';
import { generateCorpus } from '../../src/service/corpus/generator';
import { QUESTIONS, spawnServer } from './service-bench';

const { values: args } = parseArgs({ options: { a: { type: 'string' }, b: { type: 'string', default: 'out/main/service.js' } } });
if (!args.a) throw new Error('--a <old service.js> is required');

const mask = (text: string): string =>
  text
    .replace(/ses_[0-9a-f]{16}/g, 'ses_*')
    .replace(/msg_[0-9a-f]{16}/g, 'msg_*')
    .replace(/("session_slug":"[^"]*-)[A-Za-z0-9]{12}"/g, '$1*"');

const scratch = await mkdtemp(join(tmpdir(), 'clarity-ask-equivalence-'));
const serviceArgs = (path: string, dir: string): string[] => [resolve(path), '--port', '0', '--pace-ms', '0', '--no-live', '--ask-limit', '1000000', '--data-dir', join(scratch, dir)];
const services = { a: await spawnServer(serviceArgs(args.a, 'a')), b: await spawnServer(serviceArgs(args.b!, 'b')) };

/** One conversation: its turns in one session; what each turn answered, masked. */
async function converse(url: string, turns: string[], stream: boolean): Promise<string[]> {
  const out: string[] = [];
  let sessionId: string | undefined;
  for (const turn of turns) {
    const response = await fetch(`${url}/api/v1/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: turn }], stream, ...(sessionId ? { session_id: sessionId } : {}) }),
    });
    const text = await response.text();
    sessionId = stream ? /"session_id":"(ses_[0-9a-f]{16})"/.exec(text)?.[1] : (JSON.parse(text) as { session_id: string }).session_id;
    out.push(`${response.status} ${mask(text)}`);
  }
  return out;
}

const conversations = [...QUESTIONS.map((question) => [question]), ...buildGoldenSet(generateCorpus().truth).map((item) => item.turns)];
let differences = 0;
let compared = 0;
try {
  for (const turns of conversations) {
    for (const stream of [true, false]) {
      const [a, b] = await Promise.all([converse(`${services.a.url}`, turns, stream), converse(`${services.b.url}`, turns, stream)]);
      for (const [i, answer] of a.entries()) {
        compared += 1;
        if (answer === b[i]) continue;
        differences += 1;
        let at = 0;
        while (answer[at] === b[i]![at]) at += 1;
        console.log(`DIFFERENT (${stream ? 'stream' : 'JSON'}) "${turns[i]}" at byte ${at}:\n  a: …${answer.slice(Math.max(0, at - 80), at + 120)}\n  b: …${b[i]!.slice(Math.max(0, at - 80), at + 120)}`);
      }
    }
  }
  console.log(`${compared} answers compared (${conversations.length} conversations, streamed and JSON): ${differences} different`);
} finally {
  for (const service of Object.values(services)) service.child.kill('SIGTERM');
  await Promise.all(Object.values(services).map((service) => new Promise((done) => (service.child.exitCode !== null ? done(null) : service.child.once('exit', done)))));
  await rm(scratch, { recursive: true, force: true });
}
process.exitCode = differences > 0 ? 1 : 0;
