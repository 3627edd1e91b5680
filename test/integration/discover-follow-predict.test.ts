/** Discover, follows and their feed, and predict over real HTTP: success, auth, limits, errors, headers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { DiscoverPage, FeedPage, Follow, Forecast } from '../../src/shared/surface-schemas';
import type { CorpusSignal } from '../../src/service/corpus/generator';
import { postJson, startTestService } from '../support/local-service';

let service: RunningService;
let now = Date.parse('2026-11-21T09:00:00Z');
const tokens: Record<string, string> = {};

beforeAll(async () => {
  service = await startTestService({ now: () => now });
  for (const [name, tier] of [['free', undefined], ['pro', 'pro'], ['limits', undefined], ['feedfree', undefined], ['feedpro', 'pro'], ['team', 'team'], ['feedteam', 'team']] as const) {
    tokens[name] = await service.idp.issueToken(`${name}@example.com`, 24 * 3600, now, { tier });
  }
});
afterAll(() => service.close());

const bearer = (name: string) => ({ authorization: `Bearer ${tokens[name]}` });
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${service.url}${path}`, { headers });
const del = (path: string, headers: Record<string, string> = {}) => fetch(`${service.url}${path}`, { method: 'DELETE', headers });

async function expectError(response: Response, status: number, error: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
  const body = (await response.json()) as { error: string; message: string };
  expect(body).toEqual({ error, message: expect.any(String) });
  return body.message;
}

/** Live signals until one matches; the generator is seeded, so this is deterministic and quick. */
function arriveUntil(match: (signal: CorpusSignal) => boolean): CorpusSignal[] {
  const arrived: CorpusSignal[] = [];
  for (let i = 0; i < 500; i += 1) {
    const signal = service.store.addLiveSignal(new Date(now));
    arrived.push(signal);
    if (match(signal)) return arrived;
  }
  throw new Error('no matching live signal in 500 arrivals');
}

describe('Discover', () => {
  it('searches anonymously and answers the documented shape with the rate header', async () => {
    const response = await get('/api/v1/discover?q=quick%20commerce%20Bengaluru&limit=5');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-rate-limit-remaining')).toBe('59');
    const page = DiscoverPage.parse(await response.json());
    expect(page.items).toHaveLength(5);
    expect(page.items[0]).toMatchObject({ id: expect.stringMatching(/^sig_[0-9a-f]{16}$/), source: { id: expect.any(String), name: expect.any(String) } });
    expect(page.next_cursor).toEqual(expect.any(String));
  });

  it('resolves signal ids to slugs whose pages open', async () => {
    const first = DiscoverPage.parse(await (await get('/api/v1/discover?limit=2')).json()).items;
    const ids = first.map((item) => item.id);
    const page = DiscoverPage.parse(await (await get(`/api/v1/discover?id=${ids[0]}&id=${ids[1]}`)).json());
    expect(page.items.map((item) => item.id).sort()).toEqual([...ids].sort());
    expect((await get(`/signal/${page.items[0]!.slug}`)).status).toBe(200);
    const commaSeparated = DiscoverPage.parse(await (await get(`/api/v1/discover?id=${ids.join(',')}`)).json());
    expect(commaSeparated.items).toHaveLength(2);
  });

  it('filters by entity, city, kind and dates, and pages newest first without overlap', async () => {
    const filtered = DiscoverPage.parse(await (await get('/api/v1/discover?entity=zudio&city=Maharashtra&since=2026-01-01&until=2026-09-30T23:59:59Z&limit=100')).json());
    expect(filtered.items.length).toBeGreaterThan(0);
    for (const item of filtered.items) {
      expect(item.entities.retailers).toContain('Zudio');
      expect(item.entities.states).toContain('Maharashtra');
      expect(item.published_at >= '2026-01-01' && item.published_at <= '2026-09-30T23:59:59Z').toBe(true);
    }
    const kinds = DiscoverPage.parse(await (await get('/api/v1/discover?kind=store_opening&segment=fashion&limit=20')).json());
    expect(kinds.items).toHaveLength(20);
    for (const item of kinds.items) expect([item.type, item.entities.segments]).toEqual(['store_opening', ['fashion']]);
    const one = DiscoverPage.parse(await (await get('/api/v1/discover?segment=pharmacy&limit=30')).json());
    const two = DiscoverPage.parse(await (await get(`/api/v1/discover?segment=pharmacy&limit=30&cursor=${one.next_cursor}`)).json());
    const all = [...one.items, ...two.items];
    expect(new Set(all.map((item) => item.id)).size).toBe(60);
    expect(all.map((item) => item.published_at)).toEqual([...all.map((item) => item.published_at)].sort().reverse());
  });

  it('refuses bad parameters with 400 naming the field, and a bad credential with 401', async () => {
    expect(await expectError(await get('/api/v1/discover?limit=101'), 400, 'invalid_request')).toContain('`limit`');
    expect(await expectError(await get('/api/v1/discover?id=sig_nothex'), 400, 'invalid_request')).toContain('`id`');
    expect(await expectError(await get('/api/v1/discover?cursor=garbage'), 400, 'invalid_request')).toContain('`cursor`');
    await expectError(await get('/api/v1/discover', { authorization: 'Bearer not.a.jwt' }), 401, 'unauthorized');
  });

  it('allows 60 requests a minute per IP, then 429 with Retry-After; a signed-in caller has their own bucket', async () => {
    now += 61_000; // a fresh window
    for (let i = 59; i >= 0; i -= 1) {
      const response = await get('/api/v1/discover?limit=1');
      expect(response.headers.get('x-rate-limit-remaining')).toBe(String(i));
    }
    const refused = await get('/api/v1/discover?limit=1');
    await expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const signedIn = await get('/api/v1/discover?limit=1', bearer('free'));
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('x-rate-limit-remaining')).toBe('59');
    now += 61_000;
  });
});

describe('Follow', () => {
  it('needs a signed-in caller', async () => {
    expect(await expectError(await postJson(`${service.url}/api/v1/follow`, { target: { type: 'entity', value: 'DMart' } }), 401, 'unauthorized')).toMatch(/bearer JWT or an API key/);
    await expectError(await get('/api/v1/follow/feed'), 401, 'unauthorized');
  });

  it('follows, lists, refuses unknown targets, is idempotent, and unfollows', async () => {
    const created = await postJson(`${service.url}/api/v1/follow`, { target: { type: 'entity', value: 'dmart' } }, bearer('free'));
    expect(created.status).toBe(201);
    expect(created.headers.get('x-rate-limit-remaining')).toBe('59');
    const follow = Follow.parse(await created.json());
    expect(follow.target).toEqual({ type: 'entity', value: 'DMart' });
    const again = await postJson(`${service.url}/api/v1/follow`, { target: { type: 'entity', value: 'DMart' } }, bearer('free'));
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(follow.id);
    expect(await expectError(await postJson(`${service.url}/api/v1/follow`, { target: { type: 'city', value: 'Atlantis' } }, bearer('free')), 400, 'invalid_request')).toContain('Atlantis');
    expect(await expectError(await postJson(`${service.url}/api/v1/follow`, { target: { type: 'planet', value: 'x' } }, bearer('free')), 400, 'invalid_request')).toContain('`target.type`');
    const listed = (await (await get('/api/v1/follow', bearer('free'))).json()) as { follows: Follow[]; tier: string; limit: number };
    expect(listed).toMatchObject({ tier: 'free', limit: 10, follows: [{ id: follow.id }] });
    expect((await del(`/api/v1/follow/${follow.id}`, bearer('free'))).status).toBe(200);
    await expectError(await del(`/api/v1/follow/${follow.id}`, bearer('free')), 404, 'not_found');
  });

  it('holds a free caller to 10 follows (403 limit_reached) and lets pro go past it', async () => {
    const cities = ['Mumbai', 'Delhi', 'Pune', 'Chennai', 'Kolkata', 'Jaipur', 'Surat', 'Kochi', 'Indore', 'Patna', 'Nagpur'];
    for (const [index, city] of cities.entries()) {
      const free = await postJson(`${service.url}/api/v1/follow`, { target: { type: 'city', value: city } }, bearer('limits'));
      if (index < 10) expect(free.status).toBe(201);
      else expect(await expectError(free, 403, 'limit_reached')).toMatch(/free tier allows 10 follows/);
      const pro = await postJson(`${service.url}/api/v1/follow`, { target: { type: 'city', value: city } }, bearer('pro'));
      expect(pro.status).toBe(201);
    }
  });

  it('feeds new matching signals at once, oldest first, with the follows they matched; the cursor moves on', async () => {
    const segment = Follow.parse(await (await postJson(`${service.url}/api/v1/follow`, { target: { type: 'segment', value: 'Grocery' } }, bearer('free'))).json());
    const query = Follow.parse(await (await postJson(`${service.url}/api/v1/follow`, { target: { type: 'query', value: 'jewellery prices' } }, bearer('free'))).json());
    // A new follow shows the matching signals of the last 30 days at once (issue 30), each follow's newest 50 at most.
    let start = FeedPage.parse(await (await get('/api/v1/follow/feed', bearer('free'))).json());
    const recent = [...start.items];
    while (start.has_more) {
      start = FeedPage.parse(await (await get(`/api/v1/follow/feed?cursor=${start.next_cursor}`, bearer('free'))).json());
      recent.push(...start.items);
    }
    const monthAgo = new Date(now - 30 * 86_400_000).toISOString();
    const bySegment = recent.filter((item) => item.matched.includes(segment.id));
    expect(bySegment.length).toBeGreaterThan(0);
    expect(bySegment.length).toBeLessThanOrEqual(50);
    for (const item of recent) {
      expect(item.signal.published_at >= monthAgo && item.signal.published_at <= new Date(now).toISOString()).toBe(true);
      expect(item.matched.every((id) => [segment.id, query.id].includes(id))).toBe(true);
    }
    expect(bySegment.map((item) => item.signal.published_at)).toEqual(bySegment.map((item) => item.signal.published_at).sort());
    // Read once, they are not new again: the next read has nothing until something arrives.
    expect(FeedPage.parse(await (await get(`/api/v1/follow/feed?cursor=${start.next_cursor}`, bearer('free'))).json()).items).toEqual([]);
    const arrived = [...arriveUntil((s) => s.entities.segments.includes('grocery')), ...arriveUntil((s) => s.entities.segments.includes('grocery'))];
    const feed = FeedPage.parse(await (await get(`/api/v1/follow/feed?cursor=${start.next_cursor}`, bearer('free'))).json());
    const expected = arrived.filter((s) => s.entities.segments.includes('grocery') || (/jewellery/i.test(s.title + s.summary) && /price/i.test(s.title + s.summary)));
    expect(feed.items.map((item) => item.signal.id)).toEqual(expected.map((s) => s.id));
    expect(feed.items.at(-1)!.matched).toContain(segment.id);
    expect(feed.items.every((item) => item.matched.every((id) => [segment.id, query.id].includes(id)))).toBe(true);
    const after = FeedPage.parse(await (await get(`/api/v1/follow/feed?cursor=${feed.next_cursor}`, bearer('free'))).json());
    expect(after.items).toEqual([]);
    // Someone else's follows do not leak into this feed.
    const other = FeedPage.parse(await (await get('/api/v1/follow/feed', bearer('feedpro'))).json());
    expect(other.items).toEqual([]);
    await expectError(await get('/api/v1/follow/feed?cursor=-3', bearer('free')), 400, 'invalid_request');
  });

  it('allows 60 feed reads an hour on free and 600 on pro, then 429 with Retry-After', async () => {
    for (let i = 59; i >= 0; i -= 1) expect((await get('/api/v1/follow/feed', bearer('feedfree'))).headers.get('x-rate-limit-remaining')).toBe(String(i));
    const refused = await get('/api/v1/follow/feed', bearer('feedfree'));
    expect(await expectError(refused, 429, 'rate_limited')).toMatch(/60 requests per hour/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    for (let i = 0; i < 61; i += 1) expect((await get('/api/v1/follow/feed', bearer('feedpro'))).status).toBe(200);
    expect((await get('/api/v1/follow/feed', bearer('feedpro'))).headers.get('x-rate-limit-remaining')).toBe('537');
    now += 3_601_000;
    expect((await get('/api/v1/follow/feed', bearer('feedfree'))).status).toBe(200);
  });
});

describe('Follow on the team tier', () => {
  it('holds a team caller to 1,000 follows (403 limit_reached naming the tier); a team claim is honoured, not read as free', async () => {
    for (let i = 0; i < 1_000; i += 1) {
      const created = await postJson(`${service.url}/api/v1/follow`, { target: { type: 'query', value: `zudio store ${i}` } }, bearer('team'));
      expect(created.status).toBe(201);
    }
    const listed = (await (await get('/api/v1/follow', bearer('team'))).json()) as { follows: Follow[]; tier: string; limit: number };
    expect(listed).toMatchObject({ tier: 'team', limit: 1_000 });
    expect(listed.follows).toHaveLength(1_000);
    const over = await postJson(`${service.url}/api/v1/follow`, { target: { type: 'query', value: 'zudio store 1000' } }, bearer('team'));
    expect(await expectError(over, 403, 'limit_reached')).toMatch(/team tier allows 1,?000 follows/);
    // Following one it already has is still the existing follow, not a new one over the limit.
    expect((await postJson(`${service.url}/api/v1/follow`, { target: { type: 'query', value: 'zudio store 7' } }, bearer('team'))).status).toBe(200);
  }, 60_000);

  it('allows 6,000 feed reads an hour on team, then 429 with Retry-After; the next hour reads again', async () => {
    expect((await get('/api/v1/follow/feed', bearer('feedteam'))).headers.get('x-rate-limit-remaining')).toBe('5999');
    for (let i = 5998; i >= 0; i -= 1) {
      const read = await get('/api/v1/follow/feed', bearer('feedteam'));
      expect(read.status).toBe(200);
      if (i % 1000 === 0) expect(read.headers.get('x-rate-limit-remaining')).toBe(String(i));
    }
    const refused = await get('/api/v1/follow/feed', bearer('feedteam'));
    expect(await expectError(refused, 429, 'rate_limited')).toMatch(/6,?000 requests per hour/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    now += 3_601_000;
    expect((await get('/api/v1/follow/feed', bearer('feedteam'))).status).toBe(200);
  }, 120_000);
});

describe('Predict', () => {
  const predict = (body: unknown, who = 'free') => postJson(`${service.url}/api/v1/predict`, body, bearer(who));

  it('needs a signed-in caller', async () => {
    await expectError(await postJson(`${service.url}/api/v1/predict`, { entity: 'DMart', metric: 'revenue_cr', horizon: 'next_quarter' }), 401, 'unauthorized');
  });

  it('forecasts with an interval, its basis, history, method and cost', async () => {
    now += 5 * 60_000 + 1_000;
    const response = await predict({ entity: 'DMart', metric: 'revenue_cr', horizon: 'next_quarter' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-rate-limit-remaining')).toBe('4');
    const forecast = Forecast.parse(await response.json());
    // 21 Nov 2026 is in Q3 FY27 (Oct–Dec 2026): the next quarter is Q4 FY27.
    expect(forecast.forecast).toMatchObject({ unit: 'INR crore', period: 'Q4 FY27', interval: { level: 0.8 } });
    expect(forecast.forecast.interval.low).toBeLessThan(forecast.forecast.value);
    expect(forecast.forecast.interval.high).toBeGreaterThan(forecast.forecast.value);
    expect(forecast.history.length).toBeGreaterThanOrEqual(4);
    for (const point of forecast.history) expect(forecast.basis).toContain(point.signal);
    const basis = DiscoverPage.parse(await (await get(`/api/v1/discover?id=${forecast.basis.slice(0, 3).join(',')}`)).json());
    expect(basis.items.every((item) => item.entities.retailers.includes('DMart') && 'revenue_cr' in item.metrics)).toBe(true);
    expect(forecast.method).toMatch(/damped/i);
    expect(forecast.cost_usd).toBeGreaterThan(0);
    const fiscal = Forecast.parse(await (await predict({ entity: 'DMart', metric: 'revenue_cr', horizon: 'Q2 FY28' })).json());
    expect(fiscal.forecast.period).toBe('Q2 FY28');
  });

  it('says 422 when there is too little history, and 400 for a bad horizon', async () => {
    expect(await expectError(await predict({ entity: 'DMart', metric: 'rank_of_the_moon', horizon: 'next_quarter' }), 422, 'insufficient_history')).toMatch(/Too little history/);
    expect(await expectError(await predict({ entity: 'DMart', metric: 'revenue_cr', horizon: 'someday' }), 400, 'invalid_request')).toContain('`horizon`');
  });

  it('allows 5 requests per 5 minutes, then 429 with Retry-After', async () => {
    now += 5 * 60_000 + 1_000;
    for (let i = 4; i >= 0; i -= 1) {
      expect((await predict({ entity: 'Blinkit', metric: 'stores_opened', horizon: 'next_quarter' })).headers.get('x-rate-limit-remaining')).toBe(String(i));
    }
    const refused = await predict({ entity: 'DMart', metric: 'revenue_cr', horizon: 'next_year' });
    expect(await expectError(refused, 429, 'rate_limited')).toMatch(/5 requests per 5 minutes/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(300);
    expect((await predict({ entity: 'Zudio', metric: 'stores_opened', horizon: 'next_year' }, 'pro')).status).toBe(200);
  });
});
