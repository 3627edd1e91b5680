import { defineConfig } from '@playwright/test';
import { CHROMIUM_TEST_FLAGS } from './test/support/chromium-flags';

/**
 * End-to-end tests drive the real renderer in Debian's Chromium through the browser host,
 * against the real main-process services and the real local service. Never downloads a
 * browser: CHROMIUM_PATH or /usr/bin/chromium.
 */
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
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: CHROMIUM_TEST_FLAGS,
    },
    // A failed test's trace keeps its actions, DOM snapshots and sources; not the screencast, which
    // cost ~1.2-1.6 CPU s a test (docs/decisions/0049-the-ci-s-shape.md). A failure still gets its screenshot.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: true, sources: true },
    screenshot: 'only-on-failure',
  },
});
