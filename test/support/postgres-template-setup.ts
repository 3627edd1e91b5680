/**
 * The integration suite's PostgreSQL (vitest globalSetup): initdb once for the suite, and every
 * throw-away cluster a test file starts (postgres-cluster.ts) begins as a copy of it instead of
 * running initdb again (several seconds of CPU each; ten files start one). Each copy is still its
 * own server on its own port. One more copy is started here and kept running for the suite: the
 * files that never stop their server make their databases in it (sharedPostgresCluster) instead
 * of starting one each. No template and no running cluster where PostgreSQL is not installed: the
 * files that need it then fail or skip as before. Removed at the end.
 */
import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { makeClusterTemplate, postgresBinDir, startSuiteCluster } from './postgres-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder whose `data` is a freshly made cluster to copy, or '' when there is none. */
    postgresTemplateDir: string;
    /** The port of the suite's running cluster (sharedPostgresCluster), or 0 when there is none. */
    postgresSuiteClusterPort: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = postgresBinDir() ? await makeClusterTemplate() : '';
  const suite = dir ? await startSuiteCluster(dir) : null;
  project.provide('postgresTemplateDir', dir);
  project.provide('postgresSuiteClusterPort', suite?.port ?? 0);
  return async () => {
    await suite?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  };
}
