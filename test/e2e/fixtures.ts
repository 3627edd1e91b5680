/**
 * A fresh browser host per test: its own data directory, its own keychain entry name, the
 * real local service behind it. Page objects use data-testid selectors (STYLE §8).
 */
import { test as base, expect, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface RunningApp {
  launchUrl: string;
  origin: string;
  dataDir: string;
  keychainService: string;
  process: ChildProcess;
  logs: () => string;
  /** The session cookie, once a page has used the one-time launch link. */
  session?: { name: string; value: string };
}

export async function startApp(options: { paceMs?: number; dataDir?: string; serviceArgs?: string[]; keychainService?: string; port?: number } = {}): Promise<RunningApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'clarity-e2e-')));
  const keychainService = options.keychainService ?? `Clarity Desktop e2e ${process.pid} ${Date.now()}`;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/main/browser-host/cli.ts',
      '--port',
      String(options.port ?? 0),
      '--data-dir',
      dataDir,
      '--pace-ms',
      String(options.paceMs ?? 12),
      ...(options.serviceArgs ?? []).map((arg) => `--service-arg=${arg}`),
    ],
    { env: { ...process.env, CLARITY_KEYCHAIN_SERVICE: keychainService }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ready = await new Promise<{ url: string; origin: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`browser host did not start:\n${output}`)), 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      if (!line.startsWith('{')) return;
      const message = JSON.parse(line) as { event: string; url: string; origin: string };
      if (message.event === 'browser-host-ready') {
        clearTimeout(timer);
        resolve(message);
      }
    });
    child.once('exit', (code) => reject(new Error(`browser host exited with ${code}:\n${output}`)));
  });
  return { launchUrl: ready.url, origin: ready.origin, dataDir, keychainService, process: child, logs: () => output };
}

export async function stopApp(app: RunningApp, options: { keepData?: boolean } = {}): Promise<void> {
  if (app.process.exitCode === null) {
    await new Promise<void>((resolve) => {
      app.process.once('exit', () => resolve());
      app.process.kill('SIGTERM');
    });
  }
  if (!options.keepData) await rm(app.dataDir, { recursive: true, force: true });
}

/** A JWT from the embedded service's own identity provider (its key lives in the app's data dir). */
export async function tokenFor(app: RunningApp, email: string): Promise<string> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/service/cli.ts', 'token', '--user', email, '--data-dir', join(app.dataDir, 'local-service')]);
  return stdout.trim();
}

/** The URL of the embedded local service, as the status bar shows it. */
export async function serviceUrlOf(page: Page): Promise<string> {
  return (await page.getByTestId('service-label').innerText()).match(/\((http:\/\/127\.0\.0\.1:\d+)\)/)![1]!;
}

/** Kills this app's embedded local service (found by its data directory), as a crash would. */
export async function killLocalService(app: RunningApp): Promise<void> {
  await signalLocalService(app, 'SIGKILL');
}

/** Sends a signal to this app's embedded local service (SIGSTOP freezes it: unreachable, alive). */
export async function signalLocalService(app: RunningApp, signal: NodeJS.Signals): Promise<void> {
  for (const pid of await localServicePids(app)) process.kill(pid, signal);
}

/** The processes of this app's embedded local service, found by its data directory. */
export async function localServicePids(app: RunningApp): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const marker = join(app.dataDir, 'local-service');
  const pids: number[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('src/service/cli.ts') && cmdline.includes(marker)) pids.push(Number(pid));
  }
  return pids;
}

/**
 * Injects an inline script into the page and resolves with the CSP directive that blocked it
 * (hangs if nothing blocks it, so the test fails on its timeout).
 */
export function triggerCspViolation(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        document.addEventListener('securitypolicyviolation', (event) => resolve(event.violatedDirective), { once: true });
        const script = document.createElement('script');
        script.textContent = 'window.__injected = 1';
        document.body.append(script);
      }),
  );
}

/** Saves a credential through the settings view, as a user would. */
export async function saveCredential(page: Page, secret: string): Promise<void> {
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('credential-input').fill(secret);
  await page.getByTestId('credential-save').click();
  await expect(page.getByTestId('credential-status')).toContainText('is set');
}

export class ChatPage {
  constructor(readonly page: Page) {}

  /**
   * The launch link works once (SECURITY.md): the first page trades it for the session cookie,
   * which later pages on the same app (other contexts) are given instead.
   */
  async open(app: RunningApp): Promise<void> {
    if (app.session) {
      await this.page.context().addCookies([{ ...app.session, url: app.origin }]);
      await this.page.goto(app.origin);
    } else {
      await this.page.goto(app.launchUrl);
      const cookie = (await this.page.context().cookies(app.origin)).find((c) => c.name === 'clarity_session');
      if (cookie) app.session = { name: cookie.name, value: cookie.value };
    }
    await expect(this.page.getByTestId('service-state')).toHaveText(/^ready/);
  }

  async ask(question: string): Promise<void> {
    await this.page.getByTestId('composer-input').fill(question);
    await this.page.getByTestId('send').click();
  }

  lastAnswer() {
    return this.page.getByTestId('answer').last();
  }
}

export const test = base.extend<{ app: RunningApp; chat: ChatPage }>({
  // Playwright reads fixture dependencies from the destructuring pattern; this one has none.
  // eslint-disable-next-line no-empty-pattern
  app: async ({}, use) => {
    const app = await startApp();
    await use(app);
    await stopApp(app);
  },
  chat: async ({ page }, use) => {
    await use(new ChatPage(page));
  },
});

export { expect };
