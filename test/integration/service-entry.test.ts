/**
 * The service's process entry (src/service/main.ts, built as out/main/service.js: what the app
 * forks) turns on Node's compile cache in the user's cache folder and opens an existing embedded
 * database early (a first start makes it only after the CLI has accepted its arguments). The
 * cache is only a speed-up: a cache folder that cannot be made still starts a service that keeps
 * what it is given across a restart.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../support/temp-dirs';
import { devToken, FAST_ARGS, SOURCE_SERVICE_ENTRY, startServiceProcess, type ServiceProcess } from '../support/service-process';

const temp = tempDirs('clarity-entry-');
const running = new Set<ServiceProcess>();

afterAll(async () => {
  await Promise.all([...running].map((service) => service.kill9()));
  await temp.removeAll();
});

const tempDir = temp.make;
/**
 * The user cache folder of the first test once it holds what a start keeps there (the compile
 * cache, the embedded database's template cluster): the second test's starts use it, as a user's
 * later starts do, instead of making the template again by initdb in WebAssembly (several CPU
 * seconds); that test is about the data folder, not the cache. Run alone, it makes its own.
 */
let usedCacheHome: string | undefined;

async function start(dataDir: string, cacheHome: string): Promise<ServiceProcess> {
  const service = await startServiceProcess([...FAST_ARGS, '--data-dir', dataDir], 180_000, SOURCE_SERVICE_ENTRY, { XDG_CACHE_HOME: cacheHome });
  running.add(service);
  return service;
}

async function stop(service: ServiceProcess): Promise<void> {
  await service.stop();
  running.delete(service);
}

/** Issues an API key (a database write) and returns its id as the service lists it. */
async function issueKey(url: string): Promise<string> {
  const token = await devToken(url, 'entry@example.com');
  const response = await fetch(`${url}/api/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function keyIds(url: string): Promise<string[]> {
  const token = await devToken(url, 'entry@example.com');
  const response = await fetch(`${url}/api/v1/keys`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { keys: { id: string }[] }).keys.map((key) => key.id);
}

describe('the service process entry', () => {
  it('keeps compiled code in the user cache folder, and a restart serves what was written', async () => {
    const [dataDir, cacheHome] = [await tempDir(), await tempDir()];
    const first = await start(dataDir, cacheHome);
    const id = await issueKey(first.url);
    await stop(first);
    expect((await readdir(join(cacheHome, 'clarity-desktop', 'node-compile-cache'))).length).toBeGreaterThan(0);
    const second = await start(dataDir, cacheHome);
    expect(await keyIds(second.url)).toContain(id);
    await stop(second);
    usedCacheHome = cacheHome;
  }, 400_000);

  it('a first start the CLI refuses leaves no database behind, and the next start makes one', async () => {
    const [dataDir, cacheHome] = [await tempDir(), usedCacheHome ?? (await tempDir())];
    // Beyond loopback without a team database: refused after the arguments are read.
    const refused = await startServiceProcess([...FAST_ARGS, '--data-dir', dataDir, '--host', '0.0.0.0'], 180_000, SOURCE_SERVICE_ENTRY, { XDG_CACHE_HOME: cacheHome }).catch((error: unknown) => error);
    expect((refused as Error).message).toMatch(/needs --database/);
    const left = await readdir(dataDir).catch(() => []);
    expect(left).not.toContain('database');
    expect(left).not.toContain('database.lock');
    const service = await start(dataDir, cacheHome);
    const id = await issueKey(service.url);
    expect(await keyIds(service.url)).toContain(id);
    await stop(service);
    expect(await readdir(join(dataDir, 'database'))).toContain('PG_VERSION');
  }, 400_000);

  it('starts when the cache folder cannot be made (a file where the folder would be)', async () => {
    const [dataDir, parent] = [await tempDir(), await tempDir()];
    const cacheHome = join(parent, 'not-a-folder');
    await writeFile(cacheHome, 'a file, so nothing can be made under it');
    const service = await start(dataDir, cacheHome);
    const id = await issueKey(service.url);
    expect(await keyIds(service.url)).toContain(id);
    await stop(service);
  }, 400_000);
});
