import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';
import { CHROMIUM_TEST_FLAGS } from './test/support/chromium-flags';

/**
 * End-to-end tests drive the real renderer in Debian's Chromium through the browser host,
 * against the real main-process services and the real local service. Never downloads a
 * browser: CHROMIUM_PATH, else Debian's headless shell of the same Chromium when installed
 * (scripts/bootstrap.sh installs it), else /usr/bin/chromium.
 *
 * The headless shell is Chromium's own headless build (the same Blink, V8 and compositor as the
 * browser, without the browser's UI layer): Playwright's own default for headless runs. Each test
 * opens a new context and page, and the full browser's `--headless` mode costs more CPU a page
 * (docs/decisions/0049-the-ci-s-shape.md, "Round 8, e2e").
 */
// The binary itself: /usr/bin/chromium-headless-shell is a shell script that runs it as a child.
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const CHROMIUM = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');
export default defineConfig({
  testDir: 'test/e2e',
  // One sample corpus built for the suite; every fresh app starts with it (test/e2e/warm-corpus.ts).
  globalSetup: './test/e2e/global-setup.ts',
  outputDir: 'test-results/e2e',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 860 },
    launchOptions: {
      executablePath: CHROMIUM,
      args: CHROMIUM_TEST_FLAGS,
    },
    // A failed test's trace keeps its actions, DOM snapshots and sources; not the screencast, which
    // cost ~1.2-1.6 CPU s a test (docs/decisions/0049-the-ci-s-shape.md). A failure still gets its screenshot.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: true, sources: true },
    screenshot: 'only-on-failure',
  },
});
