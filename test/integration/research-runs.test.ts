/**
 * Research that researches (issue 46), over the real service and HTTP: a v2 run observed stage by
 * stage, its report verified like answers, its cost honest for both composers (the scripted model
 * reports usage), and a second run of a topic saying what changed after a fixture feed published
 * an item about it.
 */
import { cityTier } from '../../src/service/world/city-tiers';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignalStore, startService, type RunningService } from '../../src/service/server';
import { Report, ResearchQueuedResponse, ResearchRunV2 } from '../../src/shared/service-schemas';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { postJson, startTestService } from '../support/local-service';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { waitFor } from '../support/wait-for';

let service: RunningService;
let web: FixtureWeb;
let receiver: Server;
let receiverUrl: string;
const received: Array<{ event: string; signature: string; body: string }> = [];
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const until = <T>(check: () => Promise<T | null | undefined | false>, what: string, ms = 30_000, everyMs = 20): Promise<T> =>
  waitFor(check, { what, timeout: ms, interval: everyMs }) as Promise<T>;

async function startRun(on: RunningService, token: string, topic: string, preset = 'standard'): Promise<string> {
  const response = await postJson(`${on.url}/api/v2/research`, { topic, preset }, bearer(token));
  expect(response.status).toBe(202);
  return ResearchQueuedResponse.parse(await response.json()).status_url;
}

async function finished(on: RunningService, token: string, statusUrl: string) {
  return until(async () => {
    const run = ResearchRunV2.parse(await (await fetch(new URL(statusUrl, on.url), { headers: bearer(token) })).json());
    return (run.status === 'completed' || run.status === 'failed') && run;
  }, 'the run to finish');
}

async function reportOf(on: RunningService, token: string, reportUrl: string) {
  return Report.parse(await (await fetch(new URL(reportUrl, on.url), { headers: bearer(token) })).json());
}

beforeAll(async () => {
  web = await startFixtureWeb();
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ event: String(request.headers['x-clarity-event']), signature: String(request.headers['x-clarity-signature']), body });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  // A paced service (a least duration spread over the stages), so a poll sees each stage.
  service = await startService({
    store: createSignalStore({ signalCount: 3000, anchor: new Date('2026-11-01T00:00:00Z') }),
    paceMs: 0,
    liveFeed: false,
    sample: 'snapshot',
    research: { durationMs: 2_000, queueMs: 0 },
    extensions: { allowPrivateWebhooks: true },
    feed: {
      allowedPrivateHosts: [web.host],
      politeIntervalMs: 0,
      tickMs: 25,
      limits: { connectTimeoutMs: 2_000, totalTimeoutMs: 4_000 },
      sources: [{ id: 'retail-desk', name: 'Retail Desk', kind: 'rss', url: `${web.url}/rss.xml`, cadence_s: 1 }],
    },
  });
  // A first run warms the index and the verifier (a second or more of one core on a busy machine),
  // so the stages test below watches a run's own stages, not the process warming up.
  const warm = await service.idp.issueToken('warm@example.com');
  await postJson(`${service.url}/api/v1/research`, { topic: 'Quick commerce in Bengaluru' }, bearer(warm));
}, 60_000);

afterAll(async () => {
  await service?.close();
  await web?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('a run is its work', () => {
  it('moves through planning, retrieving, writing, verifying and done, seen by polling', async () => {
    const token = await service.idp.issueToken('stages@example.com');
    const statusUrl = await startRun(service, token, 'Quick commerce in Bengaluru');
    expect(statusUrl).toMatch(/^\/api\/v2\/research\/rsr_/);
    const stages: string[] = [];
    const run = await until(async () => {
      const polled = ResearchRunV2.parse(await (await fetch(new URL(statusUrl, service.url), { headers: bearer(token) })).json());
      const stage = polled.progress?.stage;
      if (stage && stages.at(-1) !== stage) stages.push(stage);
      if (polled.progress) expect(polled.progress.done).toBeLessThanOrEqual(polled.progress.total);
      return polled.status === 'completed' && polled;
    }, 'the run to complete');
    expect(stages).toEqual(expect.arrayContaining(['retrieving', 'writing', 'verifying', 'done']));
    expect(stages.at(-1)).toBe('done');
    // In the order a run does them.
    const order = ['planning', 'retrieving', 'writing', 'verifying', 'done'];
    expect([...stages].sort((a, b) => order.indexOf(a) - order.indexOf(b))).toEqual(stages);
    expect(run).toMatchObject({ cost_usd: 0, cost_basis: 'local', changes: null });
  });

  it('writes every section and verifies the report like an answer: every claim supported, support spans into the signals', async () => {
    const token = await service.idp.issueToken('verified@example.com');
    const run = await finished(service, token, await startRun(service, token, 'Quick commerce in tier-2 cities'));
    expect(run.status).toBe('completed');
    const report = await reportOf(service, token, run.report_url!);
    for (const heading of ['## Overview', '## Key figures', '## Key developments', '## Players involved', '## Where sources disagree', '## Risks', '## Outlook']) {
      expect(report.markdown).toContain(heading);
    }
    // Key developments does not repeat the Overview word for word: a development the Overview tells is listed by its headline.
    const sectionOf = (title: string): string => report.markdown.split(`## ${title}\n`)[1]!.split('\n## ')[0]!;
    const overviewSentences = sectionOf('Overview').split('\n\n').map((line) => line.replace(/\s*\[[^\]]+\]\s*$/, '').trim()).filter((line) => line.length > 40);
    for (const sentence of overviewSentences) expect(sectionOf('Key developments'), sentence).not.toContain(sentence);
    const verification = report.verification!;
    expect(verification.sentences).toBeGreaterThan(10);
    expect(verification.supported / verification.sentences).toBeGreaterThanOrEqual(0.98);
    expect(run.verification).toEqual(verification);
    expect(report.support!.length).toBeGreaterThan(5);
    const byId = new Map(report.citations.map((signal) => [signal.id, signal]));
    for (const span of report.support!) {
      const signal = byId.get(span.citation)!;
      expect(signal, `span cites ${span.citation}`).toBeDefined();
      expect(span.end).toBeGreaterThan(span.start);
      expect(span.end).toBeLessThanOrEqual(signal.body.length);
    }
    // "Tier-2 cities": no signal about a tier-1 (HRA class X) city alone is cited (Gurugram is class Y).
    for (const signal of report.citations) expect(signal.entities.cities.every((city) => cityTier(city) === 1), `${signal.id} ${signal.entities.cities.join(',')}`).toBe(false);
  });

  it('fails a run whose topic nothing matches, saying why', async () => {
    const token = await service.idp.issueToken('nothing@example.com');
    const run = await finished(service, token, await startRun(service, token, 'qwxz vbnm'));
    expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/Too few signals/) });
  });

  it("does not show a run to another user", async () => {
    const token = await service.idp.issueToken('owner@example.com');
    const statusUrl = await startRun(service, token, 'Zudio fashion stores');
    const other = await fetch(new URL(statusUrl, service.url), { headers: bearer(await service.idp.issueToken('someone-else@example.com')) });
    expect(other.status).toBe(404);
  });
});

describe('what changed since the last run of a topic', () => {
  it('a second run cites the item a feed published between the runs, first in the report', async () => {
    const token = await service.idp.issueToken('weekly@example.com');
    const topic = 'Senco Gold jewellery stores';
    const first = await finished(service, token, await startRun(service, token, topic));
    expect(first).toMatchObject({ status: 'completed', changes: null });

    web.publish('rss', {
      id: 'senco-odisha-46',
      title: 'Senco Gold opens 12 showrooms in Odisha',
      html: '<p>Senco Gold opened 12 showrooms in Bhubaneswar and Cuttack, growing 20% this quarter.</p>',
      published: new Date().toISOString(),
    });
    const arrived = await until(async () => {
      const page = (await (await fetch(`${service.url}/api/v1/discover?q=Senco%20Gold%20Odisha&limit=5`)).json()) as { items?: Array<{ id: string; title: string }> };
      return page.items?.find((item) => item.title.includes('Senco Gold opens 12 showrooms'));
    }, 'the new item in Discover', 30_000, 250);

    // The same topic written differently is the same topic.
    const second = await finished(service, token, await startRun(service, token, '  senco gold   Jewellery stores. '));
    expect(second.status).toBe('completed');
    const changes = second.changes!;
    expect(changes).toMatchObject({ previous_id: first.id, since: first.created_at });
    expect(changes.new_signals.map((signal) => signal.id)).toContain(arrived.id);
    const report = await reportOf(service, token, second.report_url!);
    const opening = report.markdown.split('\n## ')[1]!;
    expect(opening).toMatch(/^What changed since \d{1,2} \w{3} \d{4}/);
    expect(opening).toContain(`[${arrived.id}]`);
    expect(report.citations.map((signal) => signal.id)).toContain(arrived.id);
    expect(report.verification!.removed.filter((removed) => removed.text.includes(arrived.id))).toEqual([]);

    // Another user's run of the topic is not compared with this one's.
    const stranger = await service.idp.issueToken('stranger@example.com');
    expect((await finished(service, stranger, await startRun(service, stranger, topic))).changes).toBeNull();
  });
});

describe('honest cost', () => {
  let model: ScriptedModel;
  let priced: RunningService;
  let unpriced: RunningService;
  beforeAll(async () => {
    model = await startScriptedModel();
    const config = { url: model.url, model: 'scripted-7b', timeoutMs: 2_000, silenceMs: 1_000 };
    priced = await startTestService({ composer: { unsupportedClaims: 'remove', model: { ...config, prices: { inPerMillionUsd: 0.5, outPerMillionUsd: 1.5 } } } });
    unpriced = await startTestService({ composer: { unsupportedClaims: 'remove', model: config } });
  }, 60_000);
  afterAll(async () => {
    await priced?.close();
    await unpriced?.close();
    await model?.close();
  });

  it('with a model: the reported token usage at the operator prices, cost_basis model_usage', async () => {
    const token = await priced.idp.issueToken('costed@example.com');
    const before = model.requests.length;
    const run = await finished(priced, token, await startRun(priced, token, 'Quick commerce in Bengaluru'));
    expect(run.status).toBe('completed');
    const requests = model.requests.slice(before);
    expect(requests.length).toBeGreaterThanOrEqual(4);
    expect(requests.every((request) => request.body.stream_options?.include_usage === true)).toBe(true);
    // The scripted model reports ceil(prompt chars / 4) prompt tokens and one completion token a piece.
    const promptTokens = requests.reduce((sum, request) => sum + Math.ceil(request.body.messages.map((message) => message.content).join('\n').length / 4), 0);
    expect(run.cost_basis).toBe('model_usage');
    expect(run.cost_usd).toBeGreaterThan((promptTokens / 1_000_000) * 0.5);
    expect(run.cost_usd).toBeLessThan((promptTokens / 1_000_000) * 0.5 + 0.01);
    const report = await reportOf(priced, token, run.report_url!);
    expect(report).toMatchObject({ cost_basis: 'model_usage', composer: { backend: 'model', model: 'scripted-7b' } });
    expect(report.verification!.sentences).toBeGreaterThan(0);
  });

  it('with a model and no prices set: cost_usd null, never a guess', async () => {
    const token = await unpriced.idp.issueToken('unpriced@example.com');
    const run = await finished(unpriced, token, await startRun(unpriced, token, 'Zudio fashion stores'));
    expect(run).toMatchObject({ status: 'completed', cost_usd: null, cost_basis: 'model_usage' });
  });
});

describe('schedules', () => {
  it('a schedule is created, listed, run now as a normal v2 run, announced as research.changed once, and deleted', async () => {
    const token = await service.idp.issueToken('scheduler@example.com');
    const headers = bearer(token);
    const topic = 'Zudio value fashion stores';
    const hook = await postJson(`${service.url}/api/v1/webhooks`, { url: receiverUrl, events: ['research.changed'] }, headers);
    expect(hook.status).toBe(201);
    const { secret } = (await hook.json()) as { secret: string };
    const baseline = await finished(service, token, await startRun(service, token, topic));
    expect(baseline.status).toBe('completed');

    const created = await postJson(`${service.url}/api/v2/research/schedules`, { topic, every: 'weekly', at: '06:30' }, headers);
    expect(created.status).toBe(201);
    const schedule = (await created.json()) as { id: string; every: string; at: string; next_run_at: string; preset: string };
    expect(schedule).toMatchObject({ every: 'weekly', at: '06:30', preset: 'standard' });
    expect(new Date(schedule.next_run_at).toISOString().slice(11, 16)).toBe('06:30');
    expect(Date.parse(schedule.next_run_at)).toBeGreaterThan(Date.now());
    const listed = (await (await fetch(`${service.url}/api/v2/research/schedules`, { headers })).json()) as { schedules: Array<{ id: string }>; limit: number };
    expect(listed.schedules.map((entry) => entry.id)).toEqual([schedule.id]);
    expect(listed.limit).toBe(2);

    // Another user sees none of it and can neither run nor delete it.
    const stranger = bearer(await service.idp.issueToken('not-the-scheduler@example.com'));
    expect(((await (await fetch(`${service.url}/api/v2/research/schedules`, { headers: stranger })).json()) as { schedules: unknown[] }).schedules).toEqual([]);
    expect((await postJson(`${service.url}/api/v2/research/schedules/${schedule.id}/run`, {}, stranger)).status).toBe(404);
    expect((await fetch(`${service.url}/api/v2/research/schedules/${schedule.id}`, { method: 'DELETE', headers: stranger })).status).toBe(404);

    web.publish('rss', {
      id: 'zudio-indore-46',
      title: 'Zudio opens 15 stores in Indore and Bhopal',
      html: '<p>Zudio opened 15 stores in Indore and Bhopal this month, its first in Madhya Pradesh.</p>',
      published: new Date().toISOString(),
    });
    const arrived = await until(async () => {
      const page = (await (await fetch(`${service.url}/api/v1/discover?q=Zudio%20Indore&limit=5`)).json()) as { items?: Array<{ id: string; title: string }> };
      return page.items?.find((item) => item.title.includes('Zudio opens 15 stores'));
    }, 'the new item in Discover', 30_000, 250);

    const ran = await postJson(`${service.url}/api/v2/research/schedules/${schedule.id}/run`, {}, headers);
    expect(ran.status).toBe(202);
    const run = await finished(service, token, ResearchQueuedResponse.parse(await ran.json()).status_url);
    expect(run).toMatchObject({ status: 'completed', schedule_id: schedule.id, changes: { previous_id: baseline.id } });
    expect(run.changes!.new_signals.map((signal) => signal.id)).toContain(arrived.id);

    const delivery = await until(async () => received.find((entry) => entry.event === 'research.changed' && entry.body.includes(run.id)), 'the research.changed delivery');
    const body = JSON.parse(delivery.body) as { type: string; data: { run: { id: string; schedule_id: string }; changes: { new_signals: Array<{ id: string }> } } };
    expect(body).toMatchObject({ type: 'research.changed', data: { run: { id: run.id, schedule_id: schedule.id } } });
    expect(body.data.changes.new_signals.map((signal) => signal.id)).toContain(arrived.id);
    // Signed like every event: t=…,v1=HMAC-SHA256(secret, "t.body").
    const t = /(?:^|,)t=(\d+)/.exec(delivery.signature)?.[1];
    const v1 = /(?:^|,)v1=([0-9a-f]+)/.exec(delivery.signature)?.[1];
    const { createHmac } = await import('node:crypto');
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest('hex'));
    // Once: the deliveries log has one research.changed for the run.
    const hooks = (await (await fetch(`${service.url}/api/v1/webhooks`, { headers })).json()) as { webhooks: Array<{ id: string }> };
    const log = (await (await fetch(`${service.url}/api/v1/webhooks/${hooks.webhooks[0]!.id}/deliveries`, { headers })).json()) as { deliveries: Array<{ event: string; state: string }> };
    expect(log.deliveries.filter((entry) => entry.event === 'research.changed').map((entry) => entry.state)).toEqual(['delivered']);
    expect(received.filter((entry) => entry.event === 'research.changed' && entry.body.includes(run.id))).toHaveLength(1);

    const deleted = await fetch(`${service.url}/api/v2/research/schedules/${schedule.id}`, { method: 'DELETE', headers });
    expect(deleted.status).toBe(204);
    expect(((await (await fetch(`${service.url}/api/v2/research/schedules`, { headers })).json()) as { schedules: unknown[] }).schedules).toEqual([]);
    expect((await postJson(`${service.url}/api/v2/research/schedules/${schedule.id}/run`, {}, headers)).status).toBe(404);
  });

  it('a schedule\'s cadence and time change in place: same id, topic and last run; next run from the new time; owner only', async () => {
    const token = await service.idp.issueToken('editor@example.com');
    const headers = bearer(token);
    const patch = (id: string, body: unknown, as = headers) => fetch(`${service.url}/api/v2/research/schedules/${id}`, { method: 'PATCH', headers: { ...as, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = (await (await postJson(`${service.url}/api/v2/research/schedules`, { topic: 'Tanishq jewellery in Kerala', every: 'weekly', at: '06:30' }, headers)).json()) as { id: string; created_at: string };
    const ran = await postJson(`${service.url}/api/v2/research/schedules/${created.id}/run`, {}, headers);
    const runId = ResearchQueuedResponse.parse(await ran.json()).id;

    const changed = await patch(created.id, { every: 'daily', at: '03:15' });
    expect(changed.status).toBe(200);
    const schedule = (await changed.json()) as { id: string; topic: string; every: string; at: string; created_at: string; next_run_at: string; last_run_id: string };
    expect(schedule).toMatchObject({ id: created.id, topic: 'Tanishq jewellery in Kerala', every: 'daily', at: '03:15', created_at: created.created_at, last_run_id: runId });
    // Daily at 03:15 UTC: the next run is the next 03:15 after now, within a day.
    const next = Date.parse(schedule.next_run_at);
    expect(new Date(next).toISOString().slice(11, 16)).toBe('03:15');
    expect(next).toBeGreaterThan(Date.now());
    expect(next - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    // Only the time: the cadence stays. The list says the same.
    expect(await (await patch(created.id, { at: '21:00' })).json()).toMatchObject({ every: 'daily', at: '21:00', last_run_id: runId });
    const listed = (await (await fetch(`${service.url}/api/v2/research/schedules`, { headers })).json()) as { schedules: Array<{ id: string; at: string; every: string }> };
    expect(listed.schedules).toEqual([expect.objectContaining({ id: created.id, every: 'daily', at: '21:00' })]);
    // The run the schedule started still names it.
    expect(await (await fetch(`${service.url}/api/v2/research/${runId}`, { headers })).json()).toMatchObject({ schedule_id: created.id });

    // Nothing to change, a bad time, someone else's schedule, no such schedule, no caller.
    const empty = await patch(created.id, {});
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { message: string }).message).toMatch(/every.*at/);
    const badTime = await patch(created.id, { at: '25:00' });
    expect(badTime.status).toBe(400);
    expect(((await badTime.json()) as { message: string }).message).toMatch(/HH:MM/);
    expect((await patch(created.id, { at: '05:00' }, bearer(await service.idp.issueToken('someone-else@example.com')))).status).toBe(404);
    expect((await patch('rsc_0000000000000000', { at: '05:00' })).status).toBe(404);
    expect((await fetch(`${service.url}/api/v2/research/schedules/${created.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"at":"05:00"}' })).status).toBe(401);
    expect(((await (await fetch(`${service.url}/api/v2/research/schedules`, { headers })).json()) as { schedules: Array<{ at: string }> }).schedules[0]!.at).toBe('21:00');
  });

  it("caps schedules by tier and refuses a bad 'every' with a clear error", async () => {
    const headers = bearer(await service.idp.issueToken('capped@example.com'));
    const bad = await postJson(`${service.url}/api/v2/research/schedules`, { topic: 'DMart grocery', every: 'hourly' }, headers);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/every/);
    for (let i = 0; i < 2; i += 1) expect((await postJson(`${service.url}/api/v2/research/schedules`, { topic: `DMart grocery ${i}`, every: 'daily' }, headers)).status).toBe(201);
    const over = await postJson(`${service.url}/api/v2/research/schedules`, { topic: 'DMart grocery 3', every: 'daily' }, headers);
    expect(over.status).toBe(403);
    expect(await over.json()).toMatchObject({ error: 'limit_reached', message: expect.stringMatching(/free tier allows 2 research schedules/) });
  });
});
