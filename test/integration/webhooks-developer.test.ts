/**
 * Webhooks against a real receiver on loopback (signature checked the way a receiver would,
 * retries on failure, every attempt logged), and the signed-in developer area: sign-in form,
 * session cookie, CSRF, keys issued once and revoked, the deliveries page.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { DeliveryList, Follow, WebhookList } from '../../src/shared/surface-schemas';
import { ask, postJson, startTestService } from '../support/local-service';
import { pollUntil, waitFor as waitForCondition } from '../support/wait-for';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
}

let service: RunningService;
let guarded: RunningService;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** How many of the next requests the receiver answers with 500. */
let failNext = 0;
let jwt: string;
const EMAIL = 'hooks@example.com';

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const status = failNext > 0 ? 500 : 204;
      if (failNext > 0) failNext -= 1;
      received.push({ headers: request.headers, body, status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  service = await startTestService({
    research: { durationMs: 20, queueMs: 10 },
    extensions: { allowPrivateWebhooks: true, webhookRetryDelaysMs: [40, 80, 160, 320, 640] },
  });
  guarded = await startTestService({});
  jwt = await service.idp.issueToken(EMAIL);
});
afterAll(async () => {
  await Promise.all([service.close(), guarded.close()]);
  await new Promise((resolve) => receiver.close(resolve));
});

const bearer = () => ({ authorization: `Bearer ${jwt}` });

/** Polls until the condition holds (deliveries arrive on their own schedule). */
const waitFor = <T>(read: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> => waitForCondition(read, { what, timeout: timeoutMs }) as Promise<T>;

/** What a receiver does: HMAC-SHA256 over "t.body" with the secret, compared in constant time, fresh t. */
function receiverAccepts(secret: string, delivery: Received): boolean {
  const header = String(delivery.headers['x-clarity-signature'] ?? '');
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  const v1 = /(?:^|,)v1=([0-9a-f]+)/.exec(header)?.[1];
  if (!t || !v1 || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('webhooks', () => {
  let hookId: string;
  let secret: string;

  it('refuses anonymous callers, non-http URLs and (by default) private addresses', async () => {
    const anonymous = await postJson(`${service.url}/api/v1/webhooks`, { url: receiverUrl, events: ['follow.matched'] });
    expect(anonymous.status).toBe(401);
    const ftp = await postJson(`${service.url}/api/v1/webhooks`, { url: 'ftp://example.com/x', events: ['follow.matched'] }, bearer());
    expect(ftp.status).toBe(400);
    const guardedJwt = await guarded.idp.issueToken(EMAIL);
    for (const url of [receiverUrl, 'http://10.1.2.3/hook', 'http://[::1]:9/hook', 'http://169.254.169.254/latest']) {
      const refused = await postJson(`${guarded.url}/api/v1/webhooks`, { url, events: ['follow.matched'] }, { authorization: `Bearer ${guardedJwt}` });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
      expect(await refused.json()).toEqual({ error: 'invalid_request', message: expect.stringContaining('--allow-private-webhooks') });
    }
  });

  it('registers a webhook with its secret shown once', async () => {
    const created = await postJson(`${service.url}/api/v1/webhooks`, { url: receiverUrl, events: ['follow.matched', 'research.completed'] }, bearer());
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; secret: string };
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    ({ id: hookId, secret } = body);
    const listed = await (await fetch(`${service.url}/api/v1/webhooks`, { headers: bearer() })).text();
    expect(WebhookList.parse(JSON.parse(listed)).webhooks.map((hook) => hook.id)).toEqual([hookId]);
    expect(listed).not.toContain(secret);
  });

  it('delivers a follow match, signed so the receiver can verify it', async () => {
    const follow = Follow.parse(await (await postJson(`${service.url}/api/v1/follow`, { target: { type: 'segment', value: 'fashion' } }, bearer())).json());
    for (let i = 0; i < 300 && !service.store.addLiveSignal(new Date()).entities.segments.includes('fashion'); i += 1);
    const delivery = await waitFor(() => received.find((r) => r.headers['x-clarity-event'] === 'follow.matched'), 'the follow.matched delivery');
    expect(receiverAccepts(secret, delivery)).toBe(true);
    expect(receiverAccepts('whsec_wrong', delivery)).toBe(false);
    expect(receiverAccepts(secret, { ...delivery, body: delivery.body.replace('fashion', 'FASHION') })).toBe(false);
    const payload = JSON.parse(delivery.body) as { type: string; id: string; data: { follows: Array<{ id: string }>; signal: { id: string; entities: { segments: string[] } } } };
    expect(payload.type).toBe('follow.matched');
    expect(payload.id).toBe(delivery.headers['x-clarity-delivery']);
    expect(payload.data.follows.map((f) => f.id)).toContain(follow.id);
    expect(payload.data.signal.entities.segments).toContain('fashion');
  });

  it('retries a failing receiver: two failures, delivered on the third attempt, all three logged', async () => {
    failNext = 2;
    const research = await postJson(`${service.url}/api/v1/research`, { topic: 'Quick commerce in Bengaluru' }, bearer());
    expect(research.status).toBe(200);
    const runId = ((await research.json()) as { id: string }).id;
    const attempts = await waitFor(() => {
      const all = received.filter((r) => r.headers['x-clarity-event'] === 'research.completed');
      return all.length >= 3 && all;
    }, 'three research.completed attempts');
    expect(attempts.map((a) => a.status)).toEqual([500, 500, 204]);
    expect(new Set(attempts.map((a) => a.headers['x-clarity-delivery'])).size).toBe(1);
    for (const attempt of attempts) expect(receiverAccepts(secret, attempt)).toBe(true);
    expect((JSON.parse(attempts[2]!.body) as { data: { run: { id: string; status: string } } }).data.run).toMatchObject({ id: runId, status: 'completed' });

    const response = await fetch(`${service.url}/api/v1/webhooks/${hookId}/deliveries`, { headers: bearer() });
    expect(response.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
    const { deliveries } = DeliveryList.parse(await response.json());
    const logged = deliveries.find((d) => d.event === 'research.completed')!;
    expect(logged).toMatchObject({ state: 'delivered', next_attempt_at: null });
    expect(logged.attempts.map((a) => [a.attempt, a.status, a.ok])).toEqual([[1, 500, false], [2, 500, false], [3, 204, true]]);
  });

  it('rotates the secret (shown once) and redelivers a logged delivery, signed with the new one', async () => {
    const rotated = await postJson(`${service.url}/api/v1/webhooks/${hookId}/rotate-secret`, {}, bearer());
    expect(rotated.status).toBe(200);
    const fresh = ((await rotated.json()) as { secret: string }).secret;
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(fresh).not.toBe(secret);
    expect(await (await fetch(`${service.url}/api/v1/webhooks`, { headers: bearer() })).text()).not.toContain(fresh);

    const before = DeliveryList.parse(await (await fetch(`${service.url}/api/v1/webhooks/${hookId}/deliveries`, { headers: bearer() })).json());
    const original = before.deliveries.find((d) => d.event === 'research.completed')!;
    const count = received.length;
    const redelivered = await postJson(`${service.url}/api/v1/webhooks/${hookId}/deliveries/${original.id}/redeliver`, {}, bearer());
    expect(redelivered.status).toBe(202);
    const pending = (await redelivered.json()) as { id: string; redelivery_of: string; state: string };
    expect(pending).toMatchObject({ redelivery_of: original.id, state: 'pending' });
    const again = await waitFor(() => received.slice(count).find((r) => r.headers['x-clarity-delivery'] === pending.id), 'the redelivery');
    expect(receiverAccepts(fresh, again)).toBe(true);
    expect(receiverAccepts(secret, again)).toBe(false);
    // The same event: the body, and the event id in it, are the first delivery's.
    expect(JSON.parse(again.body)).toMatchObject({ id: original.id, type: 'research.completed' });
    // The receiver has it; the log records the attempt once the answer is back.
    const after = await pollUntil(
      async () => DeliveryList.parse(await (await fetch(`${service.url}/api/v1/webhooks/${hookId}/deliveries`, { headers: bearer() })).json()),
      (list) => list.deliveries[0]?.state !== 'pending',
      { timeout: 10_000, interval: 50 },
    );
    expect(after.deliveries[0]).toMatchObject({ id: pending.id, redelivery_of: original.id, state: 'delivered', attempts: [expect.objectContaining({ status: 204, ok: true })] });
    expect((await postJson(`${service.url}/api/v1/webhooks/${hookId}/deliveries/dlv_0000000000000000/redeliver`, {}, bearer())).status).toBe(404);
    expect((await postJson(`${service.url}/api/v1/webhooks/whk_0000000000000000/rotate-secret`, {}, bearer())).status).toBe(404);
    secret = fresh;
  });

  it('gives up after six attempts and logs each', async () => {
    // A user of its own, so the polls below never meet the 30-a-minute management limit.
    const own = { authorization: `Bearer ${await service.idp.issueToken('give-up@example.com')}` };
    failNext = 100;
    const created = await postJson(`${service.url}/api/v1/webhooks`, { url: receiverUrl, events: ['research.completed'] }, own);
    const { id } = (await created.json()) as { id: string };
    const research = await postJson(`${service.url}/api/v1/research`, { topic: 'Jewellery in Kerala' }, own);
    const runId = ((await research.json()) as { id: string }).id;
    // Wait on the receiver (no API calls) until the sixth attempt has arrived…
    await waitFor(() => received.filter((r) => r.body.includes(runId)).length >= 6, 'six attempts at the receiver');
    // …then read the log until the service has recorded it as failed.
    // A deadline, not a count of polls: on a busy machine the log is written later.
    const failed = await waitForCondition(async () => {
      const list = DeliveryList.parse(await (await fetch(`${service.url}/api/v1/webhooks/${id}/deliveries`, { headers: own })).json());
      return list.deliveries[0]?.state === 'failed' && list.deliveries[0];
    }, { timeout: 10_000, interval: 100, what: 'the delivery recorded as failed' });
    expect(failed.attempts).toHaveLength(6);
    expect(received.filter((r) => r.body.includes(runId))).toHaveLength(6);
    failNext = 0;
    expect((await fetch(`${service.url}/api/v1/webhooks/${id}`, { method: 'DELETE', headers: own })).status).toBe(200);
    expect((await fetch(`${service.url}/api/v1/webhooks/${id}/deliveries`, { headers: own })).status).toBe(404);
  });

  it('limits webhook management to 30 requests a minute per user, then 429 with Retry-After', async () => {
    const other = await service.idp.issueToken('limits@example.com');
    let last: Response | undefined;
    for (let i = 0; i < 31; i += 1) last = await fetch(`${service.url}/api/v1/webhooks`, { headers: { authorization: `Bearer ${other}` } });
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('x-rate-limit-remaining')).toBe('0');
    expect(await last!.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
  });
});

describe('developer area', () => {
  /** A browser's view: the cookie it holds and the CSRF token of the last form it was shown. */
  const browser = { cookie: '', csrf: '' };
  const remember = (response: Response, html?: string) => {
    const cookie = response.headers.get('set-cookie');
    if (cookie) browser.cookie = cookie.split(';')[0]!;
    const csrf = html && /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1];
    if (csrf) browser.csrf = csrf;
  };
  const open = async (path: string) => {
    const response = await fetch(`${service.url}${path}`, { headers: { cookie: browser.cookie }, redirect: 'manual' });
    const html = await response.text();
    remember(response, html);
    return { response, html };
  };
  const submit = async (path: string, fields: Record<string, string>) => {
    const response = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    const html = await response.text();
    remember(response, html);
    return { response, html };
  };

  it('signs in through the identity provider form with a session cookie and a CSRF token', async () => {
    const home = await open('/developer');
    expect(home.response.status).toBe(200);
    expect(home.response.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    expect(home.response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(home.html).toContain('<form method="post" action="/developer/sign-in">');
    const anonymousCookie = browser.cookie;

    const forged = await submit('/developer/sign-in', { email: EMAIL, csrf: 'f'.repeat(64) });
    expect(forged.response.status).toBe(403);
    const noCookie = await fetch(`${service.url}/developer/sign-in`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=${EMAIL}&csrf=${browser.csrf}`, redirect: 'manual' });
    expect(noCookie.status).toBe(403);

    const signedIn = await submit('/developer/sign-in', { email: EMAIL, tier: 'pro', csrf: browser.csrf });
    expect(signedIn.response.status).toBe(303);
    expect(signedIn.response.headers.get('location')).toBe('/developer/keys');
    expect(browser.cookie).not.toBe(anonymousCookie);
    const keys = await open('/developer/keys');
    expect(keys.html).toContain(`Signed in as ${EMAIL} (pro)`);
  });

  it('issues a key shown once that works for an ask, lists it by its last four, and revokes it', async () => {
    const issued = await submit('/developer/keys', { csrf: browser.csrf });
    expect(issued.response.status).toBe(200);
    expect(issued.response.headers.get('cache-control')).toBe('no-store');
    const key = /data-testid="new-key">(ck_[A-Za-z0-9]{32})</.exec(issued.html)![1]!;
    const answer = await postJson(`${service.url}/api/v1/ask`, ask('Zudio store openings'), { 'x-api-key': key });
    expect(answer.status).toBe(200);
    const listed = await open('/developer/keys');
    expect(listed.html).toContain(`…${key.slice(-4)}`);
    expect(listed.html).not.toContain(key);
    const keyId = /action="\/developer\/keys\/(key_[0-9a-f]+)\/revoke"/.exec(listed.html)![1]!;
    const revoked = await submit(`/developer/keys/${keyId}/revoke`, { csrf: browser.csrf });
    expect(revoked.response.status).toBe(303);
    expect((await postJson(`${service.url}/api/v1/ask`, ask('Zudio'), { 'x-api-key': key })).status).toBe(401);
  });

  it('shows every delivery attempt of the signed-in user\'s webhooks', async () => {
    const { html } = await open('/developer/webhooks');
    expect(html).toContain(receiverUrl);
    const researchRows = html.match(/<tr><td>dlv_[0-9a-f]+<\/td><td>research\.completed<\/td><td>\d<\/td>/g) ?? [];
    expect(researchRows.length).toBeGreaterThanOrEqual(3);
    expect(html).toMatch(/<td>3<\/td><td>[^<]+<\/td><td>204<\/td><td>delivered<\/td>/);
    expect(html).toContain('HTTP 500');
    // The page names every event a webhook can receive, research.changed (issue 46) among them.
    for (const event of ['follow.matched', 'research.completed', 'research.changed']) expect(html).toContain(`<code>${event}</code>`);
  });

  it('signs out; the pages ask to sign in again', async () => {
    await submit('/developer/sign-out', { csrf: browser.csrf });
    const after = await open('/developer/webhooks');
    expect(after.response.status).toBe(303);
    expect(after.response.headers.get('location')).toBe('/developer');
  });

  it('keeps form bodies to the developer area and lists the additions in the changelog', async () => {
    const form = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'messages=hi' });
    expect(form.status).toBe(415);
    const changelog = await (await fetch(`${service.url}/developer/changelog`)).text();
    for (const surface of ['/api/v1/discover', '/api/v1/follow', '/api/v1/predict', '/api/v1/webhooks', '/developer/keys', '/developer/webhooks']) expect(changelog).toContain(surface);
    expect(changelog).toContain('research.changed');
    expect(changelog).toContain('/api/v2/research/schedules');
  });
});
