/**
 * The embedded service as the app starts it (the real LocalServiceSupervisor, the CLI: the build
 * when fresh, else the source, test/support/built-code.ts; a data folder of its own) beside the fixture web that plays the outside world: what
 * the source tests set up once per file, and take down with `close` (supervisor, web, folder).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { startFixtureWeb, type FixtureWeb } from './fixture-web';
import { serviceEntry } from './built-code';
import { seedServiceFolder } from './prepared-service-folder';

export interface SupervisedService {
  /** The service's data folder. */
  dir: string;
  supervisor: LocalServiceSupervisor;
  url: string;
  web: FixtureWeb;
  close(): Promise<void>;
}

/**
 * `prefix`: the temp folder's; `serviceArgs`: the CLI's, before `--data-dir` (which this adds);
 * `seed`: what of a first start the folder begins with (seedServiceFolder's `what`), or nothing: a new folder.
 */
export async function startSupervisedService(prefix: string, serviceArgs: string[], seed?: { corpus?: boolean; database?: boolean }): Promise<SupervisedService> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (seed) await seedServiceFolder(dir, seed);
  const web = await startFixtureWeb();
  const supervisor = new LocalServiceSupervisor({ command: process.execPath, args: [...serviceEntry(), ...serviceArgs, '--data-dir', dir] }, { startTimeoutMs: 180_000 });
  const close = async (): Promise<void> => {
    await supervisor.stop();
    await web.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    return { dir, supervisor, url: await supervisor.start(), web, close };
  } catch (error) {
    await close();
    throw error;
  }
}
