/**
 * `tsx test/bench/burst-profile.ts DIR [--until p95|end] [--top N]` — reads what
 * `burst-ab.ts --profile DIR` wrote (a V8 CPU profile per build, the bursts' windows) and
 * attributes the service's samples from each burst's start to its p95 first byte (or its last
 * byte): per category (the first rule that matches the sample's stack, leaf first), and the top
 * functions by self and by inclusive time (--requests: leaving out the composes and the answers'
 * writing). Profiles and windows share the monotonic clock.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface Window {
  startUs: number;
  p95Us: number;
  endUs: number;
}

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: { until: { type: 'string', default: 'p95' }, top: { type: 'string', default: '25' }, workers: { type: 'boolean', default: false }, requests: { type: 'boolean', default: false }, phases: { type: 'boolean', default: false } },
});
const dir = positionals[0];
if (!dir) throw new Error('usage: burst-profile.ts DIR');
const windows = JSON.parse(readFileSync(join(dir, 'windows.json'), 'utf8')) as Record<string, Window[]>;

/** Categories, the first whose test matches a frame wins; frames are read from the leaf up. */
const RULES: Array<[string, (frame: CallFrame) => boolean]> = [
  ['idle', (f) => f.functionName === '(idle)'],
  ['gc', (f) => f.functionName === '(garbage collector)'],
  ['program (native, unattributed)', (f) => f.functionName === '(program)'],
  ['PGlite', (f) => /pglite/i.test(f.url)],
  ['zod', (f) => /zod/.test(f.url) || /^_?(safeParse|parse)$/.test(f.functionName)],
  ['ids (randomBytes, randomInt, slug)', (f) => /^(randomBytes|randomInt|unguessableSlug|slugify)$/.test(f.functionName)],
  ['socket writes', (f) => /^(writeGeneric|writevGeneric|_writeGeneric|_writev|writeOrBuffer|_write|write|end|uncork|_flushOutput|_send|_writeRaw)$/.test(f.functionName) && /node:(net|internal\/stream_base_commons|_http_outgoing|internal\/streams\/writable)/.test(f.url)],
  ['SSE frames (JSON, send)', (f) => /^(send|write|flush)$/.test(f.functionName) && /cli-/.test(f.url)],
  ['verification and answer writing', (f) => /^(writeAnswer|verify\w*|checkClaim\w*|splitIntoDeltas)$/.test(f.functionName)],
  ['retrieval and compose', (f) => /^(compose|composeAnswer|search|understand|parseQuestion|resolveFollowUp|retrievalQuery)$/.test(f.functionName)],
  ['session store', (f) => /^(open|writeNewRows|writeNewTurns|appendTurn)$/.test(f.functionName) && /cli-/.test(f.url)],
  ['auth and rate limit', (f) => /^(authenticate|resolveIdentity|enforceLimit|take|peek|identify)$/.test(f.functionName)],
  ['Fastify', (f) => /fastify|find-my-way|avvio|light-my-request|secure-json-parse|fast-json-stringify/.test(f.url)],
  ['HTTP parsing and accept', (f) => /node:(_http_server|_http_common|_http_incoming|net)/.test(f.url) || /^(parserOnHeadersComplete|parserOnBody|parserOnMessageComplete|onconnection)$/.test(f.functionName)],
  ['other Node internals', (f) => f.url.startsWith('node:')],
  ['other service code', (f) => /cli-|service\.js|chunks/.test(f.url)],
];

/**
 * --phases: the phase of a request a sample belongs to: the first phase below with a frame
 * anywhere in the sample's stack (so a zod parse inside the handler is validation, and the
 * handler's own frames are only what is left). Socket writes are their own phase: a response's
 * writes go out on a later tick (`connectionCorkNT`), outside the handler's stack, so
 * message_start's and the answers' are counted together.
 */
const PHASES: Array<[string, (frame: CallFrame) => boolean]> = [
  ['idle', (f) => f.functionName === '(idle)'],
  ['gc', (f) => f.functionName === '(garbage collector)'],
  ['program (native, unattributed)', (f) => f.functionName === '(program)'],
  ['session rows to the database thread', (f) => /^(writeNewRows|writeRows|writeNewTurns)$/.test(f.functionName) || (/^(ask|run)$/.test(f.functionName) && /embedded|pglite/.test(f.url))],
  ['socket writes (writev; message_start and answers)', (f) => /^(connectionCorkNT|Writable\.uncork|Socket\._writev|writevGeneric|writev|Socket\._writeGeneric|writeGeneric)$/.test(f.functionName)],
  ['request.ip (getpeername)', (f) => /^(Socket\._getpeername|_getpeername)$/.test(f.functionName)],
  ['identity (onRequest hook: credentials)', (f) => /^(resolveIdentity|authenticate)$/.test(f.functionName)],
  ['rate limit', (f) => /^(enforceLimit|take)$/.test(f.functionName) && /cli-/.test(f.url)],
  ['body validation (zod)', (f) => /zod/.test(f.url) || /^(safeParse)$/.test(f.functionName)],
  ['JSON body parsing', (f) => /^(defaultJsonParser|rawBody)$/.test(f.functionName) || /secure-json-parse/.test(f.url)],
  ['session open (ids, slug)', (f) => /^(open|unguessableSlug|slugify\$?1?|randomHex|randomString)$/.test(f.functionName) && /cli-/.test(f.url)],
  ['answers: retrieval, compose, verification, writing (earlier asks)', (f) => /^(retrieve|compose|composeAnswer|writeAnswer|step|judge|drain|push)$/.test(f.functionName) || (f.functionName === 'processImmediate' && /timers/.test(f.url))],
  ['message_start (headers, frame, write call)', (f) => /^(writeHead|send|flush|pendingHeaders|_send|write_)$/.test(f.functionName)],
  ['handler (the rest of the ask route)', (f) => /^(streamAnswer)$/.test(f.functionName) || (/cli-/.test(f.url) && f.functionName === '')],
  ['request end, close, destroy', (f) => /^(endReadableNT|destroy|_destroy|onSocketEnd|afterShutdown|emitCloseNT|end)$/.test(f.functionName)],
  ['Fastify (routing, hooks, reply)', (f) => /fastify|find-my-way|avvio|light-my-request/.test(f.url)],
  ['accept and HTTP parsing', (f) => /node:(_http_server|_http_common|_http_incoming|net)/.test(f.url) || /^(parserOnHeadersComplete|parserOnBody|parserOnMessageComplete|onconnection)$/.test(f.functionName)],
];

const COMPOSE_FRAMES = new Set(['compose', 'composeAnswer', 'writeAnswer', 'judge', 'drain', 'push', 'writeNewTurns']);

function analyse(profile: CpuProfile, ws: Window[], until: 'p95' | 'end'): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stackOf = (id: number): CallFrame[] => {
    const frames: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
    return frames; // leaf first
  };
  const categoryOf = new Map<number, string>();
  const category = (id: number): string => {
    let known = categoryOf.get(id);
    if (known) return known;
    const frames = stackOf(id);
    known = 'unattributed';
    outer: for (const frame of frames) {
      for (const [name, test] of RULES) {
        if (test(frame)) {
          known = name;
          break outer;
        }
      }
    }
    categoryOf.set(id, known);
    return known;
  };
  const phaseOf = new Map<number, string>();
  const requestPhase = (id: number): string => {
    let known = phaseOf.get(id);
    if (known) return known;
    known = 'other';
    const frames = stackOf(id);
    for (const [name, test] of PHASES) {
      if (frames.some(test)) {
        known = name;
        break;
      }
    }
    phaseOf.set(id, known);
    return known;
  };
  const phases = new Map<string, number>();
  const totals = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  // The frame just under the root: which phase of the event loop the sample is in (processImmediate:
  // the check phase, where composes run; onconnection, onStreamRead…: the poll phase's I/O callbacks).
  const phase = new Map<string, number>();
  let total = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const next = t + profile.timeDeltas[i]!;
    // A sample stands for the interval up to the next one.
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    t = next;
    const inWindow = ws.some((w) => t >= w.startUs && t <= (until === 'p95' ? w.p95Us : w.endUs));
    if (!inWindow) continue;
    const id = profile.samples[i]!;
    // --requests: the per-request work only (not the composes and the answers' writing).
    if (options.requests && stackOf(id).some((frame) => COMPOSE_FRAMES.has(frame.functionName))) continue;
    total += dt;
    const c = category(id);
    totals.set(c, (totals.get(c) ?? 0) + dt);
    if (options.phases) {
      const ph = requestPhase(id);
      phases.set(ph, (phases.get(ph) ?? 0) + dt);
    }
    const leaf = byId.get(id)!.callFrame;
    const leafName = `${leaf.functionName || '(anonymous)'} ${leaf.url.replace(/.*\//, '')}:${leaf.lineNumber}`;
    self.set(leafName, (self.get(leafName) ?? 0) + dt);
    const stack = stackOf(id);
    const entry = stack.length >= 2 ? stack[stack.length - 2]! : stack[0]!;
    const phaseName = `${entry.functionName || '(anonymous)'} ${entry.url.replace(/.*\//, '')}`;
    phase.set(phaseName, (phase.get(phaseName) ?? 0) + dt);
    const seen = new Set<string>();
    for (const frame of stack) {
      const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*\//, '')}:${frame.lineNumber}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
    }
  }
  const windowMs = ws.reduce((n, w) => n + ((until === 'p95' ? w.p95Us : w.endUs) - w.startUs) / 1000, 0);
  console.log(`  windows: ${ws.length}, ${windowMs.toFixed(0)} ms of wall time, ${total.toFixed(0)} ms sampled`);
  const top = Number(options.top);
  const print = (title: string, map: Map<string, number>, n: number): void => {
    console.log(`  ${title}`);
    for (const [name, ms] of [...map].sort((x, y) => y[1] - x[1]).slice(0, n)) console.log(`    ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${ms.toFixed(1).padStart(8)} ms  ${name}`);
  };
  if (options.phases) {
    // Per burst: the windows' sampled time divided by the number of bursts.
    console.log(`  by request phase (ms per burst; ${ws.length} bursts)`);
    for (const [name, ms] of [...phases].sort((x, y) => y[1] - x[1])) console.log(`    ${(ms / ws.length).toFixed(2).padStart(8)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${name}`);
    return;
  }
  print('by category', totals, 30);
  print('by entry (the frame under the root: the loop phase)', phase, 15);
  print('by self time', self, top);
  print('by inclusive time', inclusive, top);
}

for (const name of Object.keys(windows)) {
  // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: thread 0 is the main thread, the others workers.
  const files = readdirSync(join(dir, name)).filter((file) => file.endsWith('.cpuprofile'));
  for (const file of files.sort()) {
    const thread = file.split('.')[4];
    if (thread !== '0' && !options.workers) continue;
    console.log(`${name}: ${file} (${thread === '0' ? 'main thread' : `worker ${thread}`}; from burst start to ${options.until === 'end' ? 'last byte' : 'p95 first byte'})`);
    analyse(JSON.parse(readFileSync(join(dir, name, file), 'utf8')) as CpuProfile, windows[name]!, options.until === 'end' ? 'end' : 'p95');
  }
}
