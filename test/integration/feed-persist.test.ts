/**
 * The feed outlives its process: a source added through the admin API, fetched from the fixture
 * web, is still there after the service process restarts — its state and health facts, its fetch
 * history, its signals (found by Discover, cited by ask) and the proposals with their status — on
 * the embedded database and on a real PostgreSQL, and the next fetch is a conditional GET that
 * adds nothing twice. On a team server (two processes on one PostgreSQL) source changes and
 * proposals made through one process are seen through the other, and a source is fetched by one
 * process at a time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevIdentityProvider } from '../../src/service/auth';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { sharedPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';
import { FAST_ARGS, startServiceProcess, TEST_SERVICE, type ServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

let web: FixtureWeb;
let cluster: PostgresCluster;
const dirs: string[] = [];
const running = new Set<ServiceProcess>();

beforeAll(async () => {
  [web, cluster] = await Promise.all([startFixtureWeb(), sharedPostgresCluster()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([...running].map((service) => service.kill9()));
  await cluster?.destroy();
  await web?.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-feed-persist-'));
  dirs.push(dir);
  return dir;
}

/** An administrator's token signed with the key a service started on `dataDir` will take up (as `npm run service -- token --role admin` does). */
async function adminToken(dataDir: string): Promise<string> {
  const idp = await DevIdentityProvider.open(dataDir);
  return idp.issueToken('admin@example.com', 3_600, Date.now(), { role: 'admin' });
}

async function start(args: string[]): Promise<ServiceProcess> {
  const service = await startServiceProcess([...FAST_ARGS, '--allow-private-sources', '--health-max-age', '0', ...args]);
  running.add(service);
  return service;
}

async function stop(service: ServiceProcess): Promise<void> {
  await service.stop();
  running.delete(service);
}

const until = <T>(check: () => Promise<T | null | undefined | false>, what: string, ms = 60_000): Promise<T> =>
  waitFor(check, { what, timeout: ms, interval: 100 }) as Promise<T>;

const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;
const send = (url: string, method: string, body: unknown, token?: string): Promise<Response> =>
  fetch(url, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
const get = (url: string, token?: string): Promise<Response> => fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

interface SourceJson {
  id: string;
  name: string;
  cadence_s: number;
  health: string;
  last_success_at: string | null;
  last_fetch_at: string | null;
  items_total: number;
  consecutive_failures: number;
  next_fetch_at: string | null;
  state: undefined;
}
interface SourceDetail { source: SourceJson; history: Array<{ at: string; ok: boolean; not_modified: boolean; new_items: number }> }
interface DiscoverPage { items: Array<{ id: string; title: string; origin: string; source: { id: string } }> }
interface Proposal { id: string; status: string; reason: string | null; source_id: string | null }

const discoverDesk = async (url: string, sourceId: string): Promise<DiscoverPage['items']> =>
  (await json<DiscoverPage>(await get(`${url}/api/v1/discover?q=Avenue%20Supermarts%20Zepto%20Zudio%20Nykaa&limit=50`))).items.filter((item) => item.source.id === sourceId);

const feedRequests = (path: string) => web.requests.filter((request) => request.path === path);

/** Add, fetch, propose; restart; everything is still there, and the next fetch duplicates nothing. */
async function restartKeepsTheFeed(args: string[], dataDir: string, sourceId: string): Promise<void> {
  const token = await adminToken(dataDir);
  const before = await start(args);
  const created = await send(`${before.url}/api/v1/sources`, 'POST', { id: sourceId, name: 'Retail Desk', kind: 'rss', url: `${web.url}/rss.xml`, cadence_s: 3_600 }, token);
  expect(created.status).toBe(201);
  const fetched = await until(async () => {
    const detail = await json<SourceDetail>(await get(`${before.url}/api/v1/sources/${sourceId}`, token));
    return detail.source.last_success_at !== null && detail.history.length > 0 && detail;
  }, 'the first fetch');
  expect(fetched.source).toMatchObject({ health: 'healthy', items_total: 4, consecutive_failures: 0 });
  const signals = await until(async () => {
    const found = await discoverDesk(before.url, sourceId);
    return found.length === 4 && found;
  }, 'the four items in Discover');
  const dmart = signals.find((item) => item.title.includes('Avenue Supermarts'))!;

  const rejected = await json<{ proposal_id: string }>(await send(`${before.url}/api/v1/sources/propose`, 'POST', { url: `${web.url}/cp1252.xml`, name: 'Café feed' }));
  const pending = await json<{ proposal_id: string }>(await send(`${before.url}/api/v1/sources/propose`, 'POST', { url: `${web.url}/feed.json`, name: 'Newsroom' }));
  expect((await send(`${before.url}/api/v1/sources/proposals/${rejected.proposal_id}/reject`, 'POST', { reason: 'Not a retail source.' }, token)).status).toBe(200);
  const requestsBefore = feedRequests('/rss.xml').length;
  await stop(before);

  const after = await start(args);
  try {
    // The source, its state and health facts, and its history, read back from the database.
    const kept = await json<SourceDetail>(await get(`${after.url}/api/v1/sources/${sourceId}`, token));
    expect(kept.source).toMatchObject({ name: 'Retail Desk', health: 'healthy', items_total: 4, last_success_at: fetched.source.last_success_at, last_fetch_at: fetched.source.last_fetch_at, next_fetch_at: fetched.source.next_fetch_at });
    expect(kept.history).toEqual(fetched.history);
    const health = await json<{ sources: Array<{ id: string; health: string; last_success_at: string; items_24h: number }> }>(await get(`${after.url}/api/v1/sources/health`));
    expect(health.sources.find((source) => source.id === sourceId)).toMatchObject({ health: 'healthy', last_success_at: fetched.source.last_success_at, items_24h: 4 });
    // Its signals: answerable at once, without fetching again (the source is not due for an hour).
    expect((await discoverDesk(after.url, sourceId)).map((item) => item.id).sort()).toEqual(signals.map((item) => item.id).sort());
    const answer = await json<{ citations: string[] }>(await send(`${after.url}/api/v1/ask`, 'POST', { messages: [{ role: 'user', content: 'What was Avenue Supermarts revenue in Q2?' }] }));
    expect(answer.citations).toContain(dmart.id);
    expect(feedRequests('/rss.xml')).toHaveLength(requestsBefore);
    // Proposals, with their status and reason.
    expect(await json<Proposal>(await get(`${after.url}/api/v1/sources/proposals/${rejected.proposal_id}`))).toMatchObject({ status: 'rejected', reason: 'Not a retail source.' });
    expect(await json<Proposal>(await get(`${after.url}/api/v1/sources/proposals/${pending.proposal_id}`))).toMatchObject({ status: 'pending', reason: null });
    const queue = await json<{ proposals: Proposal[] }>(await get(`${after.url}/api/v1/sources/proposals`, token));
    expect(queue.proposals.map((proposal) => proposal.id).sort()).toEqual([rejected.proposal_id, pending.proposal_id].sort());

    // Fetched again (a new cadence makes it due): a conditional GET with the kept ETag, nothing new.
    expect((await send(`${after.url}/api/v1/sources/${sourceId}`, 'PATCH', { cadence_s: 1_800 }, token)).status).toBe(200);
    const refetched = await until(async () => {
      const detail = await json<SourceDetail>(await get(`${after.url}/api/v1/sources/${sourceId}`, token));
      return detail.history.length > fetched.history.length && detail;
    }, 'the refetch');
    expect(refetched.history[0]).toMatchObject({ ok: true, not_modified: true, new_items: 0 });
    expect(feedRequests('/rss.xml').at(-1)!.ifNoneMatch).not.toBeNull();
    expect(refetched.source.items_total).toBe(4);
    expect(await discoverDesk(after.url, sourceId)).toHaveLength(4);
  } finally {
    await stop(after);
  }
}

describe('a restart keeps the feed', () => {
  let embeddedDir: string;

  it('on the embedded database (a data directory)', { timeout: 300_000 }, async () => {
    // Begun as a first start leaves a folder (the suite's copy): this test is about the restart.
    embeddedDir = await seedServiceFolder(await tempDir());
    await restartKeepsTheFeed(['--data-dir', embeddedDir], embeddedDir, 'desk-embedded');
  });

  it('supervised by the app: the sample is a fixed snapshot beside the analyst\'s own sources, each signal labelled', { timeout: 300_000 }, async () => {
    // This test reopens the data folder of the one before it; run alone (-t), it says so.
    expect(embeddedDir, 'the data folder of the test before this one (run the describe, not this test alone)').toBeTypeOf('string');
    // As the app starts its embedded service (CLARITY_SUPERVISED=1, its stdin a pipe it holds open).
    const child = spawn(process.execPath, [...TEST_SERVICE, '--port', '0', '--pace-ms', '0', '--signals', '3000', '--health-max-age', '0', '--data-dir', embeddedDir], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, CLARITY_SUPERVISED: '1' },
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const listening = JSON.parse(line) as { url: string; sample: string };
      expect(listening.sample).toBe('snapshot');
      // Health lists only the source really fetched (kept in the database), none simulated.
      const health = await json<{ sample: string; stats: { sources_total: number }; sources: Array<{ id: string; origin: string; simulated?: boolean }> }>(await get(`${listening.url}/api/v1/sources/health`));
      expect(health.sources.map((source) => source.id)).toEqual(['desk-embedded']);
      expect(health.sources[0]).toMatchObject({ origin: 'fetched' });
      expect(health.sources[0]).not.toHaveProperty('simulated');
      expect(health.stats.sources_total).toBe(1);
      expect(health.sample).toMatch(/fixed snapshot, not fetched/);
      // Both kinds of signal answer, each saying where it came from.
      const page = await json<DiscoverPage>(await get(`${listening.url}/api/v1/discover?q=DMart%20Avenue%20Supermarts&limit=50`));
      const fetched = page.items.find((item) => item.source.id === 'desk-embedded')!;
      const sample = page.items.find((item) => item.source.id !== 'desk-embedded')!;
      expect(fetched).toMatchObject({ origin: 'feed' });
      expect(sample).toMatchObject({ origin: 'sample' });
      const lookup = await json<{ signal: { origin: string }; source: { id: string; origin: string } }>(await get(`${listening.url}/api/v1/signals/${sample.id}`));
      expect(lookup).toMatchObject({ signal: { origin: 'sample' }, source: { origin: 'sample' } });
      // No arrivals are made up: the sample's newest signal stays the newest across a few seconds.
      const newest = async () => (await json<DiscoverPage>(await get(`${listening.url}/api/v1/discover?limit=1`))).items[0]!.id;
      // A replayed sample adds arrivals every 4 s of the service's clock: wait until the service's
      // own clock (its responses' Date header, to the second) is 6 s past the first look, then look again.
      const serviceNow = async (): Promise<number> => Date.parse((await get(`${listening.url}/api/v1/discover?limit=1`)).headers.get('date') ?? '');
      const first = await newest();
      const looked = await serviceNow();
      // One look a second: Discover's anonymous bucket (60/60 s) must still answer the last look.
      await waitFor(async () => (await serviceNow()) >= looked + 7_000, { what: 'six seconds of the service\'s clock', timeout: 30_000, interval: 1_000 });
      expect(await newest()).toBe(first);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('from a sources file: applied again at each start, its entries and what was learnt about them kept once', { timeout: 300_000 }, async () => {
    const dataDir = await seedServiceFolder(await tempDir(), { corpus: false });
    const file = join(dataDir, 'sources.json');
    // No id: one derived from the name and URL, the same at every start.
    await writeFile(file, JSON.stringify({ sources: [{ name: 'JSON newsroom', kind: 'jsonfeed', url: `${web.url}/feed.json`, cadence_s: 3_600 }] }));
    const token = await adminToken(dataDir);
    const args = ['--data-dir', dataDir, '--sources-file', file, '--no-sample'];
    const before = await start(args);
    const first = await until(async () => {
      const listed = await json<{ sources: SourceJson[] }>(await get(`${before.url}/api/v1/sources`, token));
      return listed.sources.length === 1 && listed.sources[0]!.last_success_at !== null && listed.sources[0]!;
    }, 'the file\'s source fetched');
    await stop(before);
    await writeFile(file, JSON.stringify({ sources: [{ name: 'Company newsroom', kind: 'jsonfeed', url: `${web.url}/feed.json`, cadence_s: 3_600 }] }));
    const after = await start(args);
    try {
      const listed = await json<{ sources: SourceJson[] }>(await get(`${after.url}/api/v1/sources`, token));
      expect(listed.sources).toHaveLength(1);
      expect(listed.sources[0]).toMatchObject({ id: first.id, name: 'Company newsroom', last_success_at: first.last_success_at, items_total: first.items_total });
    } finally {
      await stop(after);
    }
  });

  it('on PostgreSQL', { timeout: 300_000 }, async () => {
    const dataDir = await seedServiceFolder(await tempDir(), { database: false });
    const database = await cluster.createDatabase('feed_restart');
    await restartKeepsTheFeed(['--data-dir', dataDir, '--database', database], dataDir, 'desk-postgres');
  });
});

describe('a team server: two processes on one PostgreSQL', () => {
  let a: ServiceProcess;
  let b: ServiceProcess;
  let token: string;

  beforeAll(async () => {
    const database = await cluster.createDatabase('feed_team');
    const [dirA, dirB] = [await seedServiceFolder(await tempDir(), { database: false }), await seedServiceFolder(await tempDir(), { database: false })];
    token = await adminToken(dirA);
    // A first: it puts the signing key of its data directory in the database, B takes it from there.
    a = await start(['--data-dir', dirA, '--database', database]);
    b = await start(['--data-dir', dirB, '--database', database]);
  }, 300_000);

  it('shows source changes made through one process in the other', { timeout: 120_000 }, async () => {
    expect((await send(`${a.url}/api/v1/sources`, 'POST', { id: 'newsroom', name: 'Newsroom', kind: 'jsonfeed', url: `${web.url}/feed.json`, cadence_s: 3_600 }, token)).status).toBe(201);
    const seen = await json<{ sources: SourceJson[] }>(await get(`${b.url}/api/v1/sources`, token));
    expect(seen.sources.map((source) => source.id)).toContain('newsroom');
    expect((await send(`${b.url}/api/v1/sources/newsroom`, 'PATCH', { name: 'Company newsroom', paused: true }, token)).status).toBe(200);
    expect((await json<SourceDetail>(await get(`${a.url}/api/v1/sources/newsroom`, token))).source).toMatchObject({ name: 'Company newsroom', paused: true });
    expect((await fetch(`${a.url}/api/v1/sources/newsroom`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(204);
    expect((await get(`${b.url}/api/v1/sources/newsroom`, token)).status).toBe(404);
  });

  it('keeps one proposals queue: proposed through one, decided through the other, decided once', { timeout: 120_000 }, async () => {
    const first = await json<{ proposal_id: string }>(await send(`${a.url}/api/v1/sources/propose`, 'POST', { url: `${web.url}/cp1252.xml`, name: 'Café feed' }));
    const second = await json<{ proposal_id: string }>(await send(`${b.url}/api/v1/sources/propose`, 'POST', { url: `${web.url}/rdf.xml`, name: 'Regulator releases', kind: 'rss' }));
    const queue = await json<{ proposals: Proposal[] }>(await get(`${b.url}/api/v1/sources/proposals`, token));
    expect(queue.proposals.filter((proposal) => proposal.status === 'pending').map((proposal) => proposal.id)).toEqual(expect.arrayContaining([first.proposal_id, second.proposal_id]));
    expect((await send(`${b.url}/api/v1/sources/proposals/${first.proposal_id}/reject`, 'POST', { reason: 'Not a retail source.' }, token)).status).toBe(200);
    expect(await json<Proposal>(await get(`${a.url}/api/v1/sources/proposals/${first.proposal_id}`))).toMatchObject({ status: 'rejected', reason: 'Not a retail source.' });
    // Two administrators accept the same proposal at once, one through each process: one source.
    const [viaA, viaB] = await Promise.all([a, b].map((service) => send(`${service.url}/api/v1/sources/proposals/${second.proposal_id}/accept`, 'POST', {}, token)));
    expect([viaA!.status, viaB!.status].sort()).toEqual([200, 400]);
    const decided = await json<Proposal>(await get(`${a.url}/api/v1/sources/proposals/${second.proposal_id}`));
    expect(decided).toMatchObject({ status: 'accepted' });
    const sources = await json<{ sources: SourceJson[] }>(await get(`${b.url}/api/v1/sources`, token));
    expect(sources.sources.filter((source) => source.id === decided.source_id)).toHaveLength(1);
    expect(sources.sources.filter((source) => source.name === 'Regulator releases')).toHaveLength(1);
  });

  it('fetches a source through one process at a time, never both at once', { timeout: 120_000 }, async () => {
    const fetchedFrom = feedRequests('/atom.xml').length;
    expect((await send(`${a.url}/api/v1/sources`, 'POST', { id: 'wire', name: 'Atom wire', kind: 'atom', url: `${web.url}/atom.xml`, cadence_s: 1 }, token)).status).toBe(201);
    // Both processes are due to fetch it every second for a while.
    const detail = await until(async () => {
      const read = await json<SourceDetail>(await get(`${b.url}/api/v1/sources/wire`, token));
      return read.history.length >= 6 && read;
    }, 'six fetches of the wire');
    const requests = feedRequests('/atom.xml').slice(fetchedFrom);
    // One request per recorded fetch (the preview on adding is the one before them)…
    expect(requests.length - 1).toBeGreaterThanOrEqual(detail.history.length);
    const fetches = requests.slice(1).map((request) => request.at);
    // …and never two fetches of the source within its cadence (less its 10% jitter).
    const gaps = fetches.slice(1).map((at, i) => at - fetches[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(850);
    await fetch(`${a.url}/api/v1/sources/wire`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  });
});
