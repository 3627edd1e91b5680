import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Services an integration test starts without --data-dir use the default folder under
// XDG_CONFIG_HOME: a folder of this run's own, never the person's real Clarity data.
const integrationConfigHome = join(tmpdir(), `clarity-integration-config-${process.pid}`);

/** Tests mirror the processes: node for main/shared/service, a DOM for renderer components. */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit-node',
          environment: 'node',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        esbuild: { jsx: 'automatic' },
        test: {
          name: 'unit-dom',
          environment: 'jsdom',
          include: ['test/unit/**/*.test.tsx'],
        },
      },
      {
        test: {
          name: 'integration',
          environment: 'node',
          include: ['test/integration/**/*.test.ts'],
          // The in-process services' sample corpus, built once for the suite (test/support/corpus-cache-setup.ts);
          // one initdb for the suite, each file's throw-away PostgreSQL a copy (test/support/postgres-template-setup.ts);
          // one first start of the service, its data folder copied into new ones (test/support/service-folder-setup.ts).
          globalSetup: ['test/support/corpus-cache-setup.ts', 'test/support/postgres-template-setup.ts', 'test/support/service-folder-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env: { XDG_CONFIG_HOME: integrationConfigHome },
        },
      },
      {
        test: {
          name: 'keychain',
          environment: 'node',
          include: ['test/keychain/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
