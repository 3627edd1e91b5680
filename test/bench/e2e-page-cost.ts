/**
 * What one e2e test's page costs in CPU: a browser context opened on an app already running (the
 * session cookie, as `AppShell.open` gives a later page), the app loaded to its ready state, then
 * closed, as every e2e test does. Measured per process tree (the browser's, the browser host's with
 * its local service) from /proc, so the figure is CPU seconds, not wall time on a shared machine.
 * Alternates browser executables per round (e.g. Debian's full Chromium and its headless shell).
 *
 *   npx tsx test/bench/e2e-page-cost.ts [--rounds 3] [--pages 6] [--exe /usr/bin/chromium --exe /usr/lib/chromium/chromium-headless-shell]
 */
import { chromium, type Browser } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startApp, stopApp } from '../e2e/app-process';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, pages: { type: 'string', default: '6' }, exe: { type: 'string', multiple: true } } });
const executables = values.exe?.length ? values.exe : ['/usr/bin/chromium', '/usr/lib/chromium/chromium-headless-shell'];
const TICK = 100; // USER_HZ on Linux

/** CPU seconds (user + system, with reaped children) of a process and its live descendants. */
function treeCpu(root: number): number {
  const parentOf = new Map<number, number>();
  const cpuOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parentOf.set(Number(entry), Number(fields[1]));
    cpuOf.set(Number(entry), (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICK);
  }
  let total = 0;
  for (const [pid, cpu] of cpuOf) {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = parentOf.get(at)) {
      if (at === root) {
        total += cpu;
        break;
      }
    }
  }
  return total;
}

function browserPid(browser: Browser): number {
  // Playwright launched it as our child: the newest child of this process running the executable.
  const mine = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('remote-debugging-pipe');
      } catch {
        return false;
      }
    });
  if (mine.length === 0) throw new Error(`no browser process found for ${browser.version()}`);
  return Math.max(...mine);
}

const app = await startApp({});
const results = new Map<string, { browser: number[]; app: number[]; launch: number[] }>(executables.map((exe) => [exe, { browser: [], app: [], launch: [] }]));
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const exe of executables) {
      const appBefore = treeCpu(app.process.pid!);
      const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'] });
      const pid = browserPid(browser);
      const launched = treeCpu(pid);
      results.get(exe)!.launch.push(launched);
      for (let index = 0; index < Number(values.pages); index++) {
        const browserBefore = treeCpu(pid);
        const appAt = treeCpu(app.process.pid!);
        const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
        const page = await context.newPage();
        if (app.session) {
          await context.addCookies([{ ...app.session, url: app.origin }]);
          await page.goto(app.origin);
        } else {
          await page.goto(app.launchUrl);
          const cookie = (await context.cookies(app.origin)).find((c) => c.name === 'clarity_session');
          if (cookie) app.session = { name: cookie.name, value: cookie.value };
        }
        await page.getByTestId('service-state').filter({ hasText: /^ready/ }).waitFor();
        await page.locator('[data-testid="conversation-item"].active, [data-testid="conversations-empty"]').first().waitFor();
        await context.close();
        results.get(exe)!.browser.push(treeCpu(pid) - browserBefore);
        results.get(exe)!.app.push(treeCpu(app.process.pid!) - appAt);
      }
      await browser.close();
      console.log(`round ${round + 1} ${exe}: launch ${launched.toFixed(2)} s; app tree during the round ${(treeCpu(app.process.pid!) - appBefore).toFixed(2)} s`);
    }
  }
} finally {
  await stopApp(app);
}
const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? NaN;
for (const [exe, figures] of results) {
  console.log(
    `${exe}: per page, browser median ${median(figures.browser).toFixed(2)} CPU s (all ${figures.browser.map((v) => v.toFixed(2)).join(' ')}), host+service median ${median(figures.app).toFixed(2)}; browser launch median ${median(figures.launch).toFixed(2)}`,
  );
}
