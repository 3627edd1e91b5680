/**
 * Playwright fixtures: a fresh app per test (its own data directory, its own keychain entry
 * name, the real local service behind it), started with the options `serviceArgs` and `paceMs`
 * and stopped after the test, and one page object per view on the test's page. Page objects use
 * data-testid selectors (docs/decisions/conventions.md §8) and wait on state, never on time.
 *
 *   test.use({ serviceArgs: ['--research-ms=500'] });
 *   test('…', async ({ app, chat, research }) => { await chat.open(app); … });
 *
 * Tests that need two apps or a restart on the same data directory use `apps.start(…)` (stopped
 * for them at the end) or `startApp`/`stopApp` directly.
 *
 * `fileApp` instead of `app`: one app shared by the tests of a spec file that ask for it with the
 * same options, for tests that check no first start, restart, fresh data folder or the service's
 * own start-up (each judged; one that needs its own data asks in a new conversation). A fresh app
 * costs ~7 CPU s and ~10 s of the suite's one worker (issue 49, decision 0049).
 */
import { test as base, expect, type Page } from '@playwright/test';
import { rm } from 'node:fs/promises';
import { startApp, stopApp, type RunningApp, type StartOptions } from './app-process';
import { ChatPage, CitationPanel, DiscoverPage, HealthPage, LibraryPage, ResearchPage, SettingsPage, StatusBar, WatchlistPage } from './pages';

export { killLocalService, localServicePids, serviceUrlOf, signalLocalService, startApp, stopApp, tokenFor, type RunningApp, type StartOptions } from './app-process';
export * from './pages';

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
  await new SettingsPage(page).saveCredential(secret);
}

/** Starts apps for one test and stops every one still running (and removes its data) at the end. */
export class AppLauncher {
  private readonly started: RunningApp[] = [];

  async start(options: StartOptions = {}): Promise<RunningApp> {
    const app = await startApp(options);
    this.started.push(app);
    return app;
  }

  /** Stops an app now, e.g. to restart on its data directory (`keepData`). */
  async stop(app: RunningApp, options: { keepData?: boolean } = {}): Promise<void> {
    await stopApp(app, options);
  }

  async stopAll(): Promise<void> {
    for (const app of this.started) await stopApp(app, { keepData: true });
    for (const dataDir of new Set(this.started.map((app) => app.dataDir))) await rm(dataDir, { recursive: true, force: true });
  }
}

export interface AppOptions {
  /** Arguments for the embedded local service of the `app` fixture. */
  serviceArgs: string[];
  /** The `app` fixture's streaming pace (ms between chunks). */
  paceMs: number;
}

export interface AppFixtures {
  app: RunningApp;
  /** The spec file's shared app for these options (see the top of this file). */
  fileApp: RunningApp;
  /** Stops the apps of the spec file before (set up for every test; the worker runs files one after another). */
  fileAppsOfOtherFiles: void;
  apps: AppLauncher;
  chat: ChatPage;
  citations: CitationPanel;
  research: ResearchPage;
  health: HealthPage;
  library: LibraryPage;
  discover: DiscoverPage;
  watchlist: WatchlistPage;
  settings: SettingsPage;
  statusBar: StatusBar;
}

/** The shared apps (`fileApp`) of the spec file `fileAppsFile`, by their options. */
const fileApps = new Map<string, RunningApp>();
let fileAppsFile: string | null = null;

async function stopFileApps(): Promise<void> {
  for (const app of fileApps.values()) await stopApp(app);
  fileApps.clear();
  fileAppsFile = null;
}

const exited = (app: RunningApp): boolean => app.process.exitCode !== null || app.process.signalCode !== null;

interface WorkerFixtures {
  /** Stops the shared apps when the worker ends (the last file's, or after a failed test, which ends its worker). */
  fileAppsAtWorkerEnd: void;
}

export const test = base.extend<AppOptions & AppFixtures, WorkerFixtures>({
  serviceArgs: [[], { option: true }],
  paceMs: [12, { option: true }],
  app: async ({ serviceArgs, paceMs }, use) => {
    const app = await startApp({ serviceArgs, paceMs });
    await use(app);
    await stopApp(app);
  },
  fileApp: async ({ serviceArgs, paceMs }, use, testInfo) => {
    if (fileAppsFile !== testInfo.file) await stopFileApps();
    fileAppsFile = testInfo.file;
    const key = JSON.stringify([serviceArgs, paceMs]);
    let app = fileApps.get(key);
    if (!app || exited(app)) {
      app = await startApp({ serviceArgs, paceMs });
      fileApps.set(key, app);
    }
    await use(app);
  },
  fileAppsOfOtherFiles: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use, testInfo) => {
      if (fileAppsFile !== null && fileAppsFile !== testInfo.file) await stopFileApps();
      await use();
    },
    { auto: true },
  ],
  fileAppsAtWorkerEnd: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      await use();
      await stopFileApps();
    },
    { scope: 'worker', auto: true },
  ],
  // Playwright reads fixture dependencies from the destructuring pattern; this one has none.
  // eslint-disable-next-line no-empty-pattern
  apps: async ({}, use) => {
    const apps = new AppLauncher();
    await use(apps);
    await apps.stopAll();
  },
  chat: async ({ page }, use) => use(new ChatPage(page)),
  citations: async ({ page }, use) => use(new CitationPanel(page)),
  research: async ({ page }, use) => use(new ResearchPage(page)),
  health: async ({ page }, use) => use(new HealthPage(page)),
  library: async ({ page }, use) => use(new LibraryPage(page)),
  discover: async ({ page }, use) => use(new DiscoverPage(page)),
  watchlist: async ({ page }, use) => use(new WatchlistPage(page)),
  settings: async ({ page }, use) => use(new SettingsPage(page)),
  statusBar: async ({ page }, use) => use(new StatusBar(page)),
});

/**
 * One app for all the tests of a spec file (they run in order, on one worker): for specs that
 * look at many views of the same app and need no fresh data per test. Returns the running app.
 */
export function oneAppForThisFile(options: StartOptions): () => RunningApp {
  let app: RunningApp | null = null;
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    app = await startApp(options);
  });
  test.afterAll(async () => {
    if (app) await stopApp(app);
  });
  return () => {
    if (!app) throw new Error('The app for this file has not started.');
    return app;
  };
}

export { expect };
