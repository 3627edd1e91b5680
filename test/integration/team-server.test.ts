/**
 * A team server: two service processes on one real PostgreSQL behave as one service (sessions,
 * the ask limit, the research queue, webhook deliveries, feed arrivals and follow cursors), accept the company's JWTs (a JWKS
 * served here on loopback, a newly published key accepted within a minute), and answer 503
 * while the database is down, recovering by themselves.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevIdentityProvider } from '../../src/service/auth';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { devToken, failedStart, FAST_ARGS, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { pollUntil, waitFor } from '../support/wait-for';

const ISSUER = 'https://id.example.test';
const AUDIENCE = 'retail-signal-team';

let cluster: PostgresCluster;
let jwksServer: Server;
let jwksUrl: string;
const published: JWK[] = [];
const running = new Set<ServiceProcess>();
const received: Array<{ delivery: string; type: string; run?: string; signal?: string }> = [];
let receiver: Server;
let receiverUrl: string;

async function newKey(kid: string): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

const sign = (privateKey: CryptoKey, kid: string, email: string): Promise<string> =>
  new SignJWT({ email }).setProtectedHeader({ alg: 'ES256', kid }).setSubject(email).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('1h').sign(privateKey);

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    }),
  );

let first: { privateKey: CryptoKey; jwk: JWK };
/** The watch on a newly published key (the first test of the team describe starts it, the last test of the file judges it). */
let rotation: Promise<{ status: number; error?: string }> | undefined;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  first = await newKey('key-1');
  published.push(first.jwk);
  jwksServer = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: request.url === '/empty' ? [] : published }));
  });
  jwksUrl = `${await listen(jwksServer)}/jwks.json`;
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const event = JSON.parse(body) as { id: string; type: string; data: { run?: { id: string }; signal?: { id: string } } };
      received.push({ delivery: event.id, type: event.type, run: event.data.run?.id, signal: event.data.signal?.id });
      response.end('ok');
    });
  });
  receiverUrl = `${await listen(receiver)}/hook`;
}, 120_000);

afterAll(async () => {
  await Promise.all([...running].map((service) => service.kill9()));
  await cluster?.destroy();
  jwksServer?.close();
  receiver?.close();
});

async function start(args: string[]): Promise<ServiceProcess> {
  const service = await startServiceProcess([...FAST_ARGS, '--allow-private-webhooks', ...args]);
  running.add(service);
  return service;
}

const post = (url: string, body: unknown, token: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });

describe('two service processes on one PostgreSQL', () => {
  let a: ServiceProcess;
  let b: ServiceProcess;
  let token: string;

  beforeAll(async () => {
    const url = await cluster.createDatabase('team');
    // Faults on: a stalled stream holds a first answer open for the session test below.
    const team = ['--database', url, '--jwt-issuer', ISSUER, '--jwt-audience', AUDIENCE, '--jwks-url', jwksUrl, '--enable-faults'];
    [a, b] = await Promise.all([start(team), start(team)]);
    token = await sign(first.privateKey, 'key-1', 'analyst@example.com');
  }, 300_000);

  // A newly published key is accepted once the processes' JWKS cache has cooled down (30 s):
  // published first, watched in the background (one request a second, as before) while the other
  // tests run, and judged by the last test of the file.
  it('does not accept a key before the JWKS publishes it', async () => {
    const second = await newKey('key-2');
    const token2 = await sign(second.privateKey, 'key-2', 'rotated@example.com');
    expect((await fetch(`${a.url}/api/v1/keys`, { headers: { authorization: `Bearer ${token2}` } })).status).toBe(401);
    published.push(second.jwk);
    rotation = pollUntil(async () => (await fetch(`${a.url}/api/v1/keys`, { headers: { authorization: `Bearer ${token2}` } })).status, (now) => now === 200, { timeout: 60_000, interval: 1_000 }).then(
      (status) => ({ status }),
      (error: unknown) => ({ status: 0, error: String(error) }),
    );
  });

  it('serves a session created through one process from the other, and its public page', async () => {
    const asked = (await (await post(`${a.url}/api/v1/ask`, { messages: [{ role: 'user', content: 'DMart stores in Pune' }] }, token)).json()) as { session_id: string; session_slug: string };
    const followUp = await post(`${b.url}/api/v1/ask`, { messages: [{ role: 'user', content: 'And in Mumbai?' }], session_id: asked.session_id }, token);
    expect(((await followUp.json()) as { session_id: string }).session_id).toBe(asked.session_id);
    const shared = (await (await post(`${b.url}/api/v1/sessions/${asked.session_id}/visibility`, { public: true }, token)).json()) as { turns: number };
    expect(shared.turns).toBe(2);
    expect((await fetch(`${a.url}/ask/${asked.session_slug}/2`)).status).toBe(200);
  });

  it('lets the other process share a session while its first answer still streams', async () => {
    // The stream stalls after its first frames and stays open, so its ask has not ended.
    const cut = new AbortController();
    const streaming = await fetch(`${a.url}/api/v1/ask`, { method: 'POST', signal: cut.signal, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ messages: [{ role: 'user', content: 'DMart stores in Pune [fault:stall]' }], stream: true }) });
    const reader = streaming.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const sessionId = /"session_id":"([^"]+)"/.exec(text)?.[1];
    expect(sessionId).toBeTruthy();
    try {
      const shared = await post(`${b.url}/api/v1/sessions/${sessionId}/visibility`, { public: true }, token);
      expect(shared.status).toBe(200);
      expect(((await shared.json()) as { turns: number }).turns).toBe(0);
    } finally {
      cut.abort();
    }
  });

  it('holds the ask limit (30 per 60 s) across both processes, not per process', async () => {
    const caller = await sign(first.privateKey, 'key-1', 'limits@example.com');
    const statuses: number[] = [];
    for (let i = 0; i < 31; i += 1) {
      const response = await post(`${i % 2 === 0 ? a.url : b.url}/api/v1/ask`, { messages: [{ role: 'user', content: 'DMart' }] }, caller);
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses.slice(0, 30).every((status) => status === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  }, 120_000);

  it("holds a caller to the tier's follow count across both processes, when the follows come at once", async () => {
    // No tier claim: the free tier, 10 follows. 24 at once, alternating processes: exactly 10 made.
    const caller = await sign(first.privateKey, 'key-1', 'follows@example.com');
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) => post(`${i % 2 === 0 ? a.url : b.url}/api/v1/follow`, { target: { type: 'query', value: `zudio store ${i}` } }, caller)),
    );
    const statuses = responses.map((response) => response.status).sort();
    await Promise.all(responses.map((response) => response.arrayBuffer()));
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 403)).toHaveLength(14);
    const listed = (await (await fetch(`${b.url}/api/v1/follow`, { headers: { authorization: `Bearer ${caller}` } })).json()) as { follows: unknown[] };
    expect(listed.follows).toHaveLength(10);
  }, 120_000);

  it('gives each queued research run to exactly one worker, and sends its webhook once', async () => {
    const owner = await sign(first.privateKey, 'key-1', 'research@example.com');
    const hook = (await (await post(`${a.url}/api/v1/webhooks`, { url: receiverUrl, events: ['research.completed'] }, owner)).json()) as { id: string };
    expect(hook.id).toBeTruthy();
    const runs: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await post(`${i % 2 === 0 ? a.url : b.url}/api/v2/research`, { topic: `quick commerce in Bengaluru ${i}` }, owner);
      runs.push(((await response.json()) as { id: string }).id);
    }
    const began = Date.now();
    await pollUntil(() => new Set(received.filter((event) => event.type === 'research.completed').map((event) => event.run)).size, (count) => count >= runs.length, { timeout: 60_000, interval: 100 });
    // Every delivery recorded as delivered (a final state no process claims again), each after
    // one attempt: only then can no duplicate still be on its way.
    type Deliveries = { deliveries: Array<{ event: string; state: string; attempts: unknown[] }> };
    const deliveries = await pollUntil(
      async () => ((await (await fetch(`${b.url}/api/v1/webhooks/${hook.id}/deliveries`, { headers: { authorization: `Bearer ${owner}` } })).json()) as Deliveries).deliveries,
      (now) => now.length >= runs.length && now.every((delivery) => delivery.state !== 'pending'),
      { timeout: Math.max(0, began + 60_000 - Date.now()), interval: 100 },
    );
    expect(deliveries.map((delivery) => [delivery.event, delivery.state, delivery.attempts.length])).toEqual(runs.map(() => ['research.completed', 'delivered', 1]));
    const completed = received.filter((event) => event.type === 'research.completed');
    expect(completed.map((event) => event.run).sort()).toEqual([...runs].sort());
    expect(new Set(completed.map((event) => event.delivery)).size).toBe(completed.length);
  }, 120_000);

  it('refuses development tokens: the dev-token route is off', async () => {
    const response = await fetch(`${a.url}/api/v1/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'x@example.com' }) });
    expect(response.status).toBe(404);
  });

  it("refuses the developer area's email sign-in (it trusts the typed address): people sign in through the company", async () => {
    const home = await fetch(`${a.url}/developer`);
    const html = await home.text();
    expect(html).not.toContain('action="/developer/sign-in"');
    expect(html).toContain("company's identity provider");
    // Even with the page's own cookie and CSRF token, a typed email signs nobody in.
    const cookie = (home.headers.get('set-cookie') ?? '').split(';')[0]!;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
    const forged = await fetch(`${a.url}/developer/sign-in`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'ceo@example.com', tier: 'pro', csrf }).toString(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect(await (await fetch(`${a.url}/developer/keys`, { headers: { cookie } })).text()).not.toContain('Signed in as');
  });

  it('answers 503 with Retry-After while PostgreSQL is stopped, and recovers by itself', async () => {
    await cluster.stop();
    try {
      // Answered, not left hanging: the request gives up after the interface's 10 s.
      const response = await fetch(`${b.url}/api/v1/keys`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await response.json()) as { error: string }).error).toBe('unavailable');
    } finally {
      await cluster.start();
    }
    const status = await pollUntil(async () => (await fetch(`${b.url}/api/v1/keys`, { headers: { authorization: `Bearer ${token}` } })).status, (now) => now === 200, { timeout: 10_000, interval: 200 });
    expect(status).toBe(200);
  }, 120_000);
});

describe("the developer area's browser sessions on two processes", () => {
  it('keeps a sign-in made through one process for the other, and a sign-out through that one for both', async () => {
    const url = await cluster.createDatabase('developer_area');
    const [a, b] = await Promise.all([start(['--database', url]), start(['--database', url])]);
    const browser = { cookie: '', csrf: '' };
    const visit = async (base: string, path: string, form?: Record<string, string>): Promise<{ status: number; html: string }> => {
      const response = await fetch(`${base}${path}`, {
        method: form ? 'POST' : 'GET',
        headers: { cookie: browser.cookie, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: form ? new URLSearchParams(form).toString() : undefined,
        redirect: 'manual',
      });
      const html = await response.text();
      const cookie = response.headers.get('set-cookie');
      if (cookie) browser.cookie = cookie.split(';')[0]!;
      const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1];
      if (csrf) browser.csrf = csrf;
      return { status: response.status, html };
    };
    // The sign-in form comes from A and is posted to B: B knows A's anonymous session and its token.
    await visit(a.url, '/developer');
    expect((await visit(b.url, '/developer/sign-in', { email: 'dev@example.com', tier: 'pro', csrf: browser.csrf })).status).toBe(303);
    const onA = await visit(a.url, '/developer/keys');
    expect(onA.html).toContain('Signed in as dev@example.com (pro)');
    expect((await visit(b.url, '/developer/keys')).html).toContain('Signed in as dev@example.com (pro)');
    // Signing out through A ends the session on B too: the old cookie, replayed there, signs nobody in.
    const signedInCookie = browser.cookie;
    expect((await visit(a.url, '/developer/sign-out', { csrf: browser.csrf })).status).toBe(303);
    expect(browser.cookie).toBe('rs_dev_session=');
    browser.cookie = signedInCookie;
    expect((await visit(b.url, '/developer/keys')).html).not.toContain('Signed in as');
  }, 300_000);
});

describe('feed arrivals on two processes', () => {
  let web: FixtureWeb;
  const dirs: string[] = [];

  beforeAll(async () => {
    web = await startFixtureWeb();
  });

  afterAll(async () => {
    await web?.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  interface FeedPage {
    items: Array<{ signal: { id: string; title: string }; matched: string[] }>;
    next_cursor: string;
    has_more: boolean;
  }
  const readFeed = async (base: string, token: string, cursor?: string): Promise<FeedPage> =>
    (await (await fetch(`${base}/api/v1/follow/feed${cursor ? `?cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${token}` } })).json()) as FeedPage;
  const newestOfSource = async (base: string, sourceId: string): Promise<Array<{ id: string; title: string }>> =>
    ((await (await fetch(`${base}/api/v1/discover?source=${sourceId}&limit=20`)).json()) as { items?: Array<{ id: string; title: string }> }).items ?? [];

  it("shows a signal one process fetched in the other's newest-first Discover and in a follow feed read there with the first's cursor, and sends its webhook once", async () => {
    const url = await cluster.createDatabase('feed_arrivals');
    const [dirA, dirB] = await Promise.all([mkdtemp(join(tmpdir(), 'clarity-team-feed-')), mkdtemp(join(tmpdir(), 'clarity-team-feed-'))]);
    dirs.push(dirA, dirB);
    // Each with the sample's corpus cache a first start leaves (the suite's copy); the database is PostgreSQL.
    await Promise.all([dirA, dirB].map((dir) => seedServiceFolder(dir, { database: false })));
    const admin = await (await DevIdentityProvider.open(dirA)).issueToken('admin@example.com', 3_600, Date.now(), { role: 'admin' });
    // A first: it puts the signing key of its data directory in the database, B takes it from there.
    const a = await start(['--data-dir', dirA, '--database', url, '--allow-private-sources']);
    const b = await start(['--data-dir', dirB, '--database', url, '--allow-private-sources']);
    const analyst = await devToken(b.url, 'analyst@example.com');

    // The analyst's follow and webhook, made through B; the feed read to its end through A.
    const hook = (await (await post(`${b.url}/api/v1/webhooks`, { url: receiverUrl, events: ['follow.matched'] }, analyst)).json()) as { id: string };
    const follow = (await (await post(`${b.url}/api/v1/follow`, { target: { type: 'query', value: 'Zepto fresh funding' } }, analyst)).json()) as { id: string };
    let page = await readFeed(a.url, analyst);
    while (page.has_more) page = await readFeed(a.url, analyst, page.next_cursor);
    const cursorFromA = page.next_cursor;

    // A source added through A, fetched from the fixture web.
    expect((await post(`${a.url}/api/v1/sources`, { id: 'team-desk', name: 'Team Desk', kind: 'rss', url: `${web.url}/rss.xml`, cadence_s: 3_600 }, admin)).status).toBe(201);
    const began = Date.now();
    const listed = await pollUntil(() => newestOfSource(b.url, 'team-desk'), (now) => now.length >= 4, { timeout: 60_000, interval: 500 });
    const zepto = listed.find((item) => item.title.startsWith('Zepto raises'));
    expect(zepto).toBeDefined();
    // Whichever process took the source's lease fetched it; the other holds its signals once it has read the shared feed.
    const onA = await pollUntil(() => newestOfSource(a.url, 'team-desk'), (now) => now.length >= listed.length, { timeout: Math.max(0, began + 60_000 - Date.now()), interval: 500 });
    expect(onA.map((item) => item.id)).toEqual(listed.map((item) => item.id));

    // B's feed, from A's cursor: the new signal, matched by the follow.
    const feed = await readFeed(b.url, analyst, cursorFromA);
    expect(feed.items.map((item) => item.signal.id)).toEqual([zepto!.id]);
    expect(feed.items[0]!.matched).toEqual([follow.id]);
    // Read through B, the cursor is good on A: nothing new there either.
    expect((await readFeed(a.url, analyst, feed.next_cursor)).items).toEqual([]);

    // One delivery for the match, sent once, though both processes hold the signal.
    type Deliveries = { deliveries: Array<{ event: string; state: string; attempts: unknown[] }> };
    const readDeliveries = async (): Promise<Deliveries['deliveries']> => ((await (await fetch(`${a.url}/api/v1/webhooks/${hook.id}/deliveries`, { headers: { authorization: `Bearer ${analyst}` } })).json()) as Deliveries).deliveries;
    await pollUntil(readDeliveries, (now) => now.length > 0 && now.every((delivery) => delivery.state !== 'pending'), { timeout: Math.max(0, began + 60_000 - Date.now()), interval: 100 });
    // Both processes have read each other's changes more than once since: a rename made through
    // one is waited for in the other's source list (its sync), twice each way.
    for (const [round, [writer, reader]] of ([[a, b], [b, a], [a, b], [b, a]] as Array<[typeof a, typeof a]>).entries()) {
      const name = `Team Desk ${round + 1}`;
      expect((await fetch(`${writer.url}/api/v1/sources/team-desk`, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: JSON.stringify({ name }) })).status).toBe(200);
      await waitFor(async () => ((await (await fetch(`${reader.url}/api/v1/sources`, { headers: { authorization: `Bearer ${admin}` } })).json()) as { sources: Array<{ id: string; name: string }> }).sources.some((source) => source.id === 'team-desk' && source.name === name), { timeout: 30_000, interval: 100, what: `${name} read by the other process` });
    }
    const deliveries = await readDeliveries();
    expect(deliveries.map((delivery) => [delivery.event, delivery.state, delivery.attempts.length])).toEqual([['follow.matched', 'delivered', 1]]);
    expect(received.filter((event) => event.type === 'follow.matched' && event.signal === zepto!.id)).toHaveLength(1);
  }, 300_000);
});

describe('team settings that cannot work', () => {
  it('refuses --host beyond loopback without --database and the JWT settings', async () => {
    const refused = await failedStart([...FAST_ARGS, '--host', '0.0.0.0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/needs --database and --jwt-issuer/);
  }, 60_000);

  it('fails at start with one sentence when the JWKS has no keys', async () => {
    const url = await cluster.createDatabase('nokeys');
    const refused = await failedStart([...FAST_ARGS, '--database', url, '--jwt-issuer', ISSUER, '--jwt-audience', AUDIENCE, '--jwks-url', jwksUrl.replace('/jwks.json', '/empty')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^The JWKS at http:\/\/127\.0\.0\.1:\d+\/empty did not answer with signing keys/);
  }, 120_000);
});

describe('a key newly published in the JWKS', () => {
  it('is accepted within a minute of its publication', async () => {
    // Its watch started in the team describe's first test; run alone (-t), this says so.
    expect(rotation, 'the watch started by "does not accept a key before the JWKS publishes it" (run the file, not this test alone)').toBeDefined();
    // Polled once a second for up to 60 s after its publication, as the test before the split did.
    const { status, error } = await rotation!;
    expect({ status, error }).toEqual({ status: 200, error: undefined });
  }, 90_000);
});
