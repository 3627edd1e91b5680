/** `npm run service -- --sources-file FILE --no-sample --allow-private-sources`, and a bad sources file. */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { pollUntil } from '../support/wait-for';
import { serviceEntry } from '../support/built-code';
import { seedServiceFolder } from '../support/prepared-service-folder';

let web: FixtureWeb;
let dir: string;

beforeAll(async () => {
  web = await startFixtureWeb();
  dir = await mkdtemp(join(tmpdir(), 'clarity-feed-cli-'));
  // Its data folder begins with the migrated database a first start leaves (the suite's copy): these tests are about the sources file.
  await seedServiceFolder(join(dir, 'data'), { corpus: false });
});
afterAll(async () => {
  await web.close();
  await rm(dir, { recursive: true, force: true });
});

describe('npm run service with a sources file', () => {
  it('fetches the file\'s sources, starts without the sample, and lists only them in health', async () => {
    const file = join(dir, 'sources.json');
    await writeFile(file, JSON.stringify({ sources: [{ id: 'desk', name: 'Retail Desk', kind: 'rss', url: `${web.url}/rss.xml`, cadence_s: 600 }] }));
    const child = spawn(process.execPath, [...serviceEntry(), '--port', '0', '--data-dir', join(dir, 'data'), '--sources-file', file, '--no-sample', '--allow-private-sources'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CLARITY_SUPERVISED: '' } });
    try {
      // The service listens first ({"event":"listening",…}), then says when it holds every signal
      // ({"event":"index_ready","signals":…}): without the sample it holds none of its own.
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const listening = JSON.parse((await lines.next()).value as string) as { url: string; sample: string; feed_sources: number };
      expect(listening).toMatchObject({ event: 'listening', sample: 'off', feed_sources: 1 });
      let ready: { event?: string; signals?: number } = {};
      while (ready.event !== 'index_ready') ready = JSON.parse((await lines.next()).value as string) as typeof ready;
      // None of the sample's 20,000 (the desk's own few items may have been fetched by then).
      expect(ready.signals).toBeLessThan(50);
      // The fetched items become answerable; the health snapshot lists only the fetched source.
      type Page = { items: Array<{ source: { id: string } }> };
      const page = await pollUntil(async () => (await (await fetch(`${listening.url}/api/v1/discover?q=Avenue%20Supermarts&limit=3`)).json()) as Page, (read) => read.items.length > 0, { timeout: 20_000, interval: 100 });
      expect(page.items[0]!.source.id).toBe('desk');
      const health = (await (await fetch(`${listening.url}/api/v1/sources/health`)).json()) as { sources: Array<{ id: string }> };
      expect(health.sources.map((source) => source.id)).toEqual(['desk']);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('refuses a bad sources file, naming the entry, and starts nothing', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ sources: [{ name: 'Folder', kind: 'folder', url: 'https://example.com/x' }] }));
    const run = promisify(execFile)(process.execPath, [...serviceEntry(), '--port', '0', '--data-dir', join(dir, 'data'), '--sources-file', file]);
    await expect(run).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/sources\.0 \(Folder\): A folder source needs a file:\/\/\/ URL/) });
  });
});
