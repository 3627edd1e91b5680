/**
 * The integration suite's PostgreSQL template (vitest globalSetup): initdb once for the suite,
 * and every throw-away cluster a test file starts (postgres-cluster.ts) begins as a copy of it
 * instead of running initdb again (several seconds of CPU each; ten files start one). Each copy
 * is still its own server on its own port. No template where PostgreSQL is not installed: the
 * files that need it then fail or skip as before. Removed at the end.
 */
import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { makeClusterTemplate, postgresBinDir } from './postgres-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder whose `data` is a freshly made cluster to copy, or '' when there is none. */
    postgresTemplateDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = postgresBinDir() ? await makeClusterTemplate() : '';
  project.provide('postgresTemplateDir', dir);
  return async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  };
}
