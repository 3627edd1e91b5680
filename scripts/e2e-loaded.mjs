#!/usr/bin/env node
/**
 * `npm run test:e2e:loaded [-- <playwright args>]`: the end-to-end suite with the CPU busy.
 *
 * Starts one busy-loop worker thread per core (E2E_LOAD_WORKERS overrides the count), runs the
 * same command as `npm run test:e2e` with the arguments given, and stops the workers when it
 * ends, whatever the outcome. A wait that only holds on an idle machine (hovering before the
 * answer has rendered, a poll with a count instead of a deadline) fails here instead of in a
 * landing. The exit code is Playwright's.
 *
 *   npm run test:e2e:loaded -- layout-flow.spec.ts --workers=1
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const count = Number(process.env.E2E_LOAD_WORKERS ?? availableParallelism());
// Each worker spins until it is terminated: a full core of load at normal priority.
const busyLoop = 'let x = 0; for (;;) { x = (x + Math.sqrt(x + 1)) % 1e9; }';
const workers = Array.from({ length: count }, () => new Worker(busyLoop, { eval: true }));
console.log(`e2e-loaded: ${count} busy-loop worker(s) running, one per core`);

const stopLoad = async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.terminate()));
};

const child = spawn('bash', ['scripts/with-display.sh', 'bash', 'scripts/with-keychain.sh', 'npx', 'playwright', 'test', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  void stopLoad().then(() => {
    console.log('e2e-loaded: load stopped');
    process.exit(code ?? (signal ? 1 : 0));
  });
});
