#!/usr/bin/env node
/**
 * `npm test`: every suite, nothing skipped, independent ones side by side (issue 49 item 3).
 *
 * Suites share no fixed port (every server in the tests listens on port 0) and no folder (temp
 * dirs; Playwright writes test-results/ and playwright-report/, no other suite does), so they
 * may run at once. One build is made and reused: `size`, `e2e` and `integration` wait for it
 * (the apps and service processes the tests start run the build: test/support/built-code.ts).
 * At most TEST_JOBS suites run at a time (default 3 on this 2-core machine: the suites wait on
 * child processes, databases and browsers much of the time); TEST_JOBS=1 runs
 * them one after another in the old order. Each suite's output goes to
 * test-results/suites/<name>.log; a failed suite's output is printed at the end, then a table
 * of every suite's time and CPU seconds (user + system of the processes it waited for: on this
 * 2-core machine the suites' CPU, not their order, bounds the run). The exit code is 1 if any
 * suite failed.
 *
 *   npm test                       TEST_JOBS=1 npm test        node scripts/test-all.mjs unit types+lint
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

const LOGS = join('test-results', 'suites');

/**
 * The suites in `npm test`'s old order (TEST_JOBS=1 keeps it). `after`: suites that must pass
 * first. Among the ready ones, the one with the longest path to the end of the run starts first
 * (`weight`: seconds in a clean-clone CI run on this machine, roughly; a suite's path is its
 * weight plus the longest path of the suites waiting for it), so the build starts at once and
 * e2e, the longest suite, right after it: when build waited behind unit, e2e started 3 minutes
 * late and ran alone at the end (the clean-clone run of 2026-12-07: 1,676 s).
 */
const SUITES = [
  // `npm run typecheck` and `npm run lint` in one process: each TypeScript program built once, for tsc's
  // diagnostics and ESLint's type-aware rules both (scripts/typecheck-and-lint.mjs); apart, lint built them again.
  { name: 'types+lint', command: 'node scripts/typecheck-and-lint.mjs', weight: 170 },
  { name: 'security', command: 'npm run security:scan', weight: 10 },
  { name: 'unit', command: 'npm run test:unit', weight: 180 },
  // Its service processes run the build when it is fresh (test/support/built-code.ts): less CPU per start.
  // One file at a time: two at a time overloaded 2 cores beside e2e (timeouts in the clean-clone run, decision 0049).
  { name: 'integration', command: 'npm run test:integration', after: ['build'], weight: 1250 },
  { name: 'keychain', command: 'npm run test:keychain', weight: 5 },
  { name: 'build', command: 'npm run build', weight: 5 },
  { name: 'size', command: 'npm run size', after: ['build'], weight: 2 },
  // One worker, as playwright.config.ts: two beside integration timed out (decision 0049).
  { name: 'e2e', command: 'npm run test:e2e', after: ['build'], weight: 1500 },
];

/** A suite's weight plus the longest path of the suites that wait for it. */
function pathToEnd(suite) {
  const waiting = SUITES.filter((other) => (other.after ?? []).includes(suite.name));
  return suite.weight + Math.max(0, ...waiting.map(pathToEnd));
}

const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? 3) || 1);
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !SUITES.some((suite) => suite.name === name));
if (unknown.length > 0) {
  console.error(`test-all: no suite named ${unknown.join(', ')}; the suites are ${SUITES.map((suite) => suite.name).join(', ')}`);
  process.exit(2);
}
// Asking for a suite brings what it needs (size and e2e need the build).
const wanted = new Set(asked.length > 0 ? asked : SUITES.map((suite) => suite.name));
for (const suite of SUITES) if (wanted.has(suite.name)) for (const need of suite.after ?? []) wanted.add(need);
const suites = SUITES.filter((suite) => wanted.has(suite.name));

await mkdir(LOGS, { recursive: true });
/** name → { state: 'waiting' | 'running' | 'passed' | 'failed' | 'not run', seconds, cpu, code } */
const results = new Map(suites.map((suite) => [suite.name, { state: 'waiting', seconds: null, cpu: null, code: null }]));

/** Seconds from bash's `times` line `1m2.345s 0m3.210s` (user, system): their sum. */
function cpuSeconds(line) {
  const parts = [...(line ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map((match) => Number(match[1]) * 60 + Number(match[2]));
  return parts.length === 2 ? parts[0] + parts[1] : null;
}
const started = Date.now();
const running = new Set();

function run(suite) {
  const result = results.get(suite.name);
  result.state = 'running';
  const log = createWriteStream(join(LOGS, `${suite.name}.log`));
  const begun = Date.now();
  console.log(`test-all: ${suite.name} started (${suite.command})`);
  // bash's `times` after the command: the CPU of the processes it waited for (children of children included).
  const cpuFile = join(LOGS, `${suite.name}.cpu`);
  const script = `${suite.command}\ncode=$?\ntimes > '${cpuFile}'\nexit $code`;
  // Its own process group, so an interrupt reaches the suite's children too.
  const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  running.add(child);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      log.end();
      result.seconds = (Date.now() - begun) / 1000;
      result.code = code ?? signal;
      result.state = code === 0 ? 'passed' : 'failed';
      void readFile(cpuFile, 'utf8')
        .then((text) => (result.cpu = cpuSeconds(text.split('\n')[1])))
        .catch(() => undefined)
        .finally(() => {
          void rm(cpuFile, { force: true });
          console.log(`test-all: ${suite.name} ${result.state} in ${result.seconds.toFixed(0)} s${result.cpu === null ? '' : ` (CPU ${result.cpu.toFixed(0)} s)`}${code === 0 ? '' : ` (exit ${result.code})`}`);
          if (log.closed) resolve();
          else log.on('close', resolve);
        });
    });
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    }
    process.exit(130);
  });
}

// Start whatever is ready (its needs passed), longest path to the end first, up to `jobs` at a time; a suite
// whose need failed is not run (and counts as a failure).
await new Promise((resolveAll) => {
  const pump = () => {
    for (const suite of suites) {
      const result = results.get(suite.name);
      if (result.state === 'waiting' && (suite.after ?? []).some((need) => ['failed', 'not run'].includes(results.get(need)?.state))) result.state = 'not run';
    }
    const ready = suites
      .filter((suite) => results.get(suite.name).state === 'waiting' && (suite.after ?? []).every((need) => results.get(need)?.state === 'passed'))
      .sort((a, b) => (jobs === 1 ? 0 : pathToEnd(b) - pathToEnd(a)));
    while (running.size < jobs && ready.length > 0) {
      // A slot is kept for each suite that waits only on running ones and has the longer path: the build runs
      // its few seconds alone, then e2e and integration start together (integration no longer waits ~300 s
      // behind unit and lint for a slot, to run alone at the end).
      const soon = jobs === 1 ? [] : suites.filter((suite) => results.get(suite.name).state === 'waiting' && (suite.after ?? []).length > 0 && (suite.after ?? []).every((need) => ['running', 'passed'].includes(results.get(need)?.state)) && !ready.includes(suite));
      const reserved = soon.filter((suite) => pathToEnd(suite) > pathToEnd(ready[0])).length;
      if (running.size > 0 && running.size + reserved >= jobs) break;
      void run(ready.shift()).then(pump);
    }
    if (running.size === 0 && ![...results.values()].some((result) => result.state === 'waiting')) resolveAll();
  };
  pump();
});

const failed = suites.filter((suite) => results.get(suite.name).state !== 'passed');
for (const suite of failed) {
  const result = results.get(suite.name);
  if (result.state === 'not run') continue;
  const output = await readFile(join(LOGS, `${suite.name}.log`), 'utf8');
  console.log(`\n──── ${suite.name} failed (exit ${result.code}): its output (also in ${join(LOGS, `${suite.name}.log`)}) ────`);
  process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
}

const wall = (Date.now() - started) / 1000;
const sum = suites.reduce((total, suite) => total + (results.get(suite.name).seconds ?? 0), 0);
const cpu = suites.reduce((total, suite) => total + (results.get(suite.name).cpu ?? 0), 0);
const seconds = (value) => (value === null ? '     -' : `${value.toFixed(0).padStart(5)} s`);
console.log(`\nSuite         Result    Time      CPU`);
for (const suite of suites) {
  const result = results.get(suite.name);
  console.log(`${suite.name.padEnd(13)} ${result.state.padEnd(9)} ${seconds(result.seconds)}  ${seconds(result.cpu)}`);
}
console.log(`${'whole run'.padEnd(13)} ${(failed.length === 0 ? 'passed' : 'failed').padEnd(9)} ${seconds(wall)}  ${seconds(cpu)}  (suites one after another: ${sum.toFixed(0)} s; at most ${jobs} at a time; ${cpus().length} cores; load ${loadavg().map((load) => load.toFixed(1)).join(' ')})`);
process.exit(failed.length === 0 ? 0 : 1);
