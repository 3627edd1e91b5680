/** The live feed, and the token command of `npm run service`. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { HealthSnapshot } from '../../src/shared/service-schemas';
import { DevIdentityProvider } from '../../src/service/auth';
import { createSignalStore, startService } from '../../src/service/server';
import { serviceEntry } from '../support/built-code';

describe('live feed', () => {
  it('replayed: adds retrievable signals, moves simulated health and items, and changes the snapshot ETag once its max-age passes', async () => {
    const store = createSignalStore({ signalCount: 2_000 });
    // The service's clock is the test's: the snapshot's max-age passes when the test says so.
    let clock = Date.now();
    const service = await startService({ store, paceMs: 0, liveFeed: true, liveIntervalMs: 40, sample: 'replay', healthMaxAgeS: 2, now: () => clock });
    try {
      const before = await fetch(`${service.url}/api/v1/sources/health`);
      const etag = before.headers.get('etag');
      const snapshot = HealthSnapshot.parse(await before.json());
      // The replayed sample says it is simulated, source by source.
      expect(snapshot.sources.every((source) => (source as { simulated?: boolean }).simulated === true)).toBe(true);
      // Within the max-age every caller gets the same body and ETag, however the feed moves.
      const again = await fetch(`${service.url}/api/v1/sources/health`);
      expect(again.headers.get('etag')).toBe(etag);
      const size = store.index.size;
      // Wait on the feed itself: more than twenty replayed signals have arrived.
      await vi.waitUntil(() => store.index.size > size + 20, { timeout: 30_000, interval: 20 });
      // Still within the max-age: the cached snapshot revalidates, however much the feed moved.
      expect((await fetch(`${service.url}/api/v1/sources/health`, { headers: { 'if-none-match': etag! } })).status).toBe(304);
      clock += 2_000;
      const after = await fetch(`${service.url}/api/v1/sources/health`, { headers: { 'if-none-match': etag! } });
      expect(after.status).toBe(200);
      const moved = HealthSnapshot.parse(await after.json());
      const changed = moved.sources.filter((source, i) => source.health !== snapshot.sources[i]!.health || source.last_item_at !== snapshot.sources[i]!.last_item_at);
      expect(changed.length).toBeGreaterThan(0);
      // A signal that just arrived is cited by the very next answer about it.
      const live = store.addLiveSignal(new Date());
      const response = await fetch(`${service.url}/api/v1/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: live.title }] }),
      });
      expect(((await response.json()) as { citations: string[] }).citations).toContain(live.id);
    } finally {
      await service.close();
    }
  });
});

describe('npm run service -- token', () => {
  it('prints an ES256 JWT that a service using the same data directory accepts', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'clarity-idp-'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [...serviceEntry(), 'token', '--user', 'analyst@example.com', '--data-dir', dataDir]);
      const token = stdout.trim();
      expect(token.split('.')).toHaveLength(3);
      const idp = await DevIdentityProvider.open(dataDir);
      expect(await idp.verify(token, Date.now())).toMatchObject({ email: 'analyst@example.com', via: 'jwt' });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
