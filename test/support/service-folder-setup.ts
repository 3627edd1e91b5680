/**
 * The integration suite's prepared service data folder (vitest globalSetup): one first start of
 * the service, its corpus cache and migrated empty database kept for the tests that copy them into
 * a new data folder (prepared-service-folder.ts). Removed at the end.
 */
import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { prepareServiceFolder } from './prepared-service-folder';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await prepareServiceFolder();
  project.provide('preparedServiceFolder', dir);
  return async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  };
}
