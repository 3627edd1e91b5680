/**
 * What a file of tests on service processes sets up once: the fixture web that plays the outside
 * world, temporary folders, and the services it started. At the end every service still running
 * is killed with kill -9 (as a crash: no shutdown code runs), the web closed and the folders
 * removed. It registers its own beforeAll/afterAll: call it at the top level of a test file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from './fixture-web';
import { seedServiceFolder } from './prepared-service-folder';
import type { ServiceProcess } from './service-process';

export interface ProcessTestBed {
  /** The fixture web, started before the file's tests. */
  readonly web: FixtureWeb;
  /** A new temporary folder (`prefix` + random), removed at the end. */
  tempDir(): Promise<string>;
  /**
   * A new temporary folder holding what a first start of FAST_ARGS' service leaves (the suite's
   * copy, prepared-service-folder.ts): for a test not about the first start. `what` as seedServiceFolder's.
   */
  preparedDir(what?: { corpus?: boolean; database?: boolean }): Promise<string>;
  /** A service to kill at the end unless the test stopped it (`forget`). */
  track<T extends ServiceProcess>(service: T): T;
  /** A service the test stopped itself. */
  forget(service: ServiceProcess): void;
}

export function processTestBed(prefix: string): ProcessTestBed {
  let web: FixtureWeb | null = null;
  const dirs: string[] = [];
  const running = new Set<ServiceProcess>();

  beforeAll(async () => {
    web = await startFixtureWeb();
  });
  afterAll(async () => {
    await Promise.all([...running].map((service) => service.kill9()));
    await web?.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  return {
    get web(): FixtureWeb {
      if (!web) throw new Error('The fixture web starts before the tests (beforeAll).');
      return web;
    },
    async tempDir() {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async preparedDir(what) {
      return seedServiceFolder(await this.tempDir(), what);
    },
    track(service) {
      running.add(service);
      return service;
    },
    forget(service) {
      running.delete(service);
    },
  };
}
