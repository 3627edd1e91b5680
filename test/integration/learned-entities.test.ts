/**
 * Entities learned from the feed (issue 43, item 1), through the real service as its own process
 * over HTTP: a source about retailers and people the gazetteer does not know is fetched from the
 * fixture web; then questions name them (by name, alias, misspelt), Discover filters by them, a
 * follow on one matches a new item, the entities endpoint lists them, and after a restart
 * nothing changes. On PostgreSQL, what one process learned resolves on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevIdentityProvider } from '../../src/service/auth';
import { sharedPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';
import { processTestBed } from '../support/process-test-bed';
import { devToken, FAST_ARGS, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

const bed = processTestBed('clarity-learned-');

async function start(args: string[]): Promise<ServiceProcess> {
  return bed.track(await startServiceProcess([...FAST_ARGS, '--allow-private-sources', ...args]));
}

async function stop(service: ServiceProcess): Promise<void> {
  await service.stop();
  bed.forget(service);
}

const until = <T>(check: () => Promise<T | null | undefined | false>, what: string, ms = 60_000): Promise<T> =>
  waitFor(check, { what, timeout: ms, interval: 100 }) as Promise<T>;

const post = (url: string, body: unknown, token?: string): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

interface Listed { name: string; kind: string; aliases: string[]; origin: string; signals: number; segments?: string[]; cities?: string[] }
const entities = async (base: string, q: string): Promise<Listed[]> => ((await (await fetch(`${base}/api/v1/entities?q=${encodeURIComponent(q)}`)).json()) as { items: Listed[] }).items;
const learned = async (base: string, name: string): Promise<Listed | undefined> => (await entities(base, name)).find((item) => item.name === name && item.origin === 'learned');

interface Item { id: string; title: string; entities: { retailers: string[] } }
const discover = async (base: string, query: string): Promise<Item[]> => ((await (await fetch(`${base}/api/v1/discover?${query}&limit=50`)).json()) as { items: Item[] }).items;
const ask = async (base: string, question: string): Promise<{ content: string; citations: string[] }> =>
  (await (await post(`${base}/api/v1/ask`, { messages: [{ role: 'user', content: question }] })).json()) as { content: string; citations: string[] };

async function addSource(base: string, dataDir: string, id: string, cadence = 3_600): Promise<void> {
  const admin = await (await DevIdentityProvider.open(dataDir)).issueToken('admin@example.com', 3_600, Date.now(), { role: 'admin' });
  const added = await post(`${base}/api/v1/sources`, { id, name: 'Open world desk', kind: 'rss', url: `${bed.web.url}/open-world.xml`, cadence_s: cadence }, admin);
  expect(added.status).toBe(201);
}

/** The ids of the signals about an entity, and a question's answer citing at least one of them. */
async function expectCitedAbout(base: string, question: string, entity: string): Promise<void> {
  const about = new Set((await discover(base, `entity=${encodeURIComponent(entity)}`)).map((item) => item.id));
  expect(about.size).toBeGreaterThan(0);
  const answer = await ask(base, question);
  expect(answer.content, question).not.toMatch(/no signals about/i);
  expect(answer.citations.some((id) => about.has(id)), `${question} → ${answer.citations.join(', ')}`).toBe(true);
}

describe('entities learned from the feed, embedded database', () => {
  let dataDir: string;
  let service: ServiceProcess;

  it('learns the retailers and people of a new source, with kind, aliases and cities, within a minute', async () => {
    // As a first start leaves a folder (the suite's copy): what is learned comes from the fetch.
    dataDir = await bed.preparedDir();
    service = await start(['--data-dir', dataDir]);
    const fetchedAt = Date.now();
    await addSource(service.url, dataDir, 'open-world', 2);
    const vmm = await until(() => learned(service.url, 'Vishal Mega Mart'), 'Vishal Mega Mart learned');
    expect(Date.now() - fetchedAt).toBeLessThan(60_000);
    expect(vmm).toMatchObject({ kind: 'retailer', origin: 'learned' });
    expect(vmm.aliases).toContain('VMM');
    expect(vmm.cities).toContain('Lucknow');
    expect(vmm.signals).toBeGreaterThanOrEqual(2);
    expect((await entities(service.url, 'NTL'))[0]).toMatchObject({ name: 'Nilgiri Threads', origin: 'learned', segments: ['fashion'] });
    expect((await entities(service.url, 'Ananya Raghavan'))[0]).toMatchObject({ name: 'Ananya Raghavan', kind: 'person', origin: 'learned' });
    expect((await entities(service.url, 'Zudio'))[0]).toMatchObject({ name: 'Zudio', origin: 'gazetteer' });
    // Words of items that are not names are not learned.
    for (const word of ['Footfall', 'Retail Inflation', 'Quick', 'Mall']) expect((await entities(service.url, word)).filter((item) => item.origin === 'learned' && item.name === word)).toEqual([]);
    // The fetched signal names them.
    const [first] = await discover(service.url, `q=${encodeURIComponent('Vishal Mega Mart opens 12 stores')}`);
    expect(first!.entities.retailers).toEqual(expect.arrayContaining(['Vishal Mega Mart', 'Sandeep Bhatia']));
  }, 120_000);

  it('answers questions about them by name, alias and misspelling, citing their items', async () => {
    await expectCitedAbout(service.url, 'What did Vishal Mega Mart announce?', 'Vishal Mega Mart');
    await expectCitedAbout(service.url, 'What is VMM planning?', 'Vishal Mega Mart');
    await expectCitedAbout(service.url, 'Any news from Vishal Mega Mrt?', 'Vishal Mega Mart');
    await expectCitedAbout(service.url, 'How did Nilgiri Threads do last quarter?', 'Nilgiri Threads');
    await expectCitedAbout(service.url, 'What did Farah Qureshi say?', 'Farah Qureshi');
    await expectCitedAbout(service.url, 'Is DealShare cutting staff?', 'DealShare');
  }, 60_000);

  it("filters Discover by a learned entity's name and alias", async () => {
    const byName = await discover(service.url, 'entity=Vishal%20Mega%20Mart');
    expect(byName.map((item) => item.title)).toEqual(expect.arrayContaining(['Vishal Mega Mart opens 12 stores in Lucknow and Kanpur', 'VMM plans 40 more stores in tier-2 towns']));
    expect(byName.every((item) => item.entities.retailers.includes('Vishal Mega Mart'))).toBe(true);
    expect((await discover(service.url, 'entity=VMM')).map((item) => item.id).sort()).toEqual(byName.map((item) => item.id).sort());
  });

  it('follows a learned entity by its alias and matches a new item about it', async () => {
    const analyst = await devToken(service.url, 'analyst@example.com');
    const follow = await post(`${service.url}/api/v1/follow`, { target: { type: 'entity', value: 'NTL' } }, analyst);
    expect(follow.status).toBe(201);
    expect(((await follow.json()) as { target: { value: string } }).target.value).toBe('Nilgiri Threads');
    bed.web.publish('open-world', { id: 'ntl-mysuru', title: 'Nilgiri Threads opens first Mysuru store', html: '<p>NTL opened its first store in Mysuru on Saturday.</p>', published: new Date().toISOString() });
    const matched = await until(async () => {
      const feed = (await (await fetch(`${service.url}/api/v1/follow/feed`, { headers: { authorization: `Bearer ${analyst}` } })).json()) as { items: Array<{ signal: { title: string } }> };
      return feed.items.find((item) => item.signal.title === 'Nilgiri Threads opens first Mysuru store');
    }, 'the new NTL item in the follow feed');
    expect(matched).toBeDefined();
  }, 60_000);

  it('keeps them across a restart', async () => {
    // This test restarts the service of the tests before it; run alone (-t), it says so.
    expect(dataDir, 'the data folder of the first test (run the describe, not this test alone)').toBeTypeOf('string');
    await stop(service);
    service = await start(['--data-dir', dataDir]);
    // Asked at once, before any fetch of the restarted service could have learned them again.
    expect(await learned(service.url, 'Vishal Mega Mart')).toMatchObject({ kind: 'retailer', aliases: expect.arrayContaining(['VMM']) });
    await expectCitedAbout(service.url, 'What did Vishal Mega Mart announce?', 'Vishal Mega Mart');
    await expectCitedAbout(service.url, 'What is NTL doing?', 'Nilgiri Threads');
  }, 120_000);
});

describe('entities learned on a team server', () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = await sharedPostgresCluster();
  }, 120_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('an entity one process learned resolves on the other', async () => {
    const url = await cluster.createDatabase('learned_entities');
    const [dirA, dirB] = await Promise.all([bed.preparedDir({ database: false }), bed.preparedDir({ database: false })]);
    // A first: it puts the signing key of its data directory in the database before it listens, B
    // takes it from there (B starts while A's index still warms; both are ready before the test goes on).
    const a = bed.track(await startServiceProcess([...FAST_ARGS, '--allow-private-sources', '--data-dir', dirA, '--database', url], undefined, undefined, {}, 'listening'));
    const b = await start(['--data-dir', dirB, '--database', url]);
    await a.readyAt;
    await addSource(a.url, dirA, 'team-open-world');
    // One of the two fetched the source (whichever took its lease): both know what it learned.
    for (const service of [a, b]) {
      await until(() => learned(service.url, 'Vishal Mega Mart'), 'Vishal Mega Mart on both processes');
      expect((await entities(service.url, 'VMM'))[0]).toMatchObject({ name: 'Vishal Mega Mart', origin: 'learned' });
      await until(async () => (await discover(service.url, 'entity=Lenskart')).length >= 2, 'the Lenskart signals on both processes');
      await expectCitedAbout(service.url, 'What did Vishal Mega Mart announce?', 'Vishal Mega Mart');
      await expectCitedAbout(service.url, 'How is Lenskart doing?', 'Lenskart');
    }
  }, 180_000);
});
