/**
 * Compatibility suite (issue #14): Clarity against a fake remote Retail Signal service that
 * follows the interface but makes other allowed choices (test/support/fake-remote-service.ts).
 * Every variant goes through the bridge host, as the renderer would use it: answers arrive
 * whole with their citations, the health view fills, research reports are stored, errors say
 * something useful, and no credential reaches a host the user did not allow-list.
 * docs/compatibility.md tables each variant and the test below that covers it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskEvent, CredentialStatus, PushEventName, StreamMessage } from '../../src/shared/bridge-contract';
import type { Conversation } from '../../src/shared/conversation';
import type { HealthView } from '../../src/shared/health';
import type { ResearchRunSummary, StoredReport } from '../../src/shared/research';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import { HealthMonitor } from '../../src/main/services/health/health-monitor';
import { createBridgeHost } from '../../src/main/compose-services';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import { ANSWER, CITE, CITE_2, REPORT_MARKDOWN, startFakeRemoteService, variant, type FakeRemoteService } from '../support/fake-remote-service';

const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.expired-test-token.signature';

interface Harness {
  host: BridgeHost;
  dir: string;
  fake: FakeRemoteService;
  pushes: Array<{ event: PushEventName; payload: unknown }>;
}

const open: Array<{ host: BridgeHost; fake: FakeRemoteService; dir: string }> = [];
afterEach(async () => {
  for (const { host, fake, dir } of open.splice(0)) {
    await host.dispose();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** A bridge host pointed at the fake service with `variantId`'s behaviour. */
async function connect(variantId: string | null, options: { credential?: boolean; trustOther?: boolean } = {}): Promise<Harness> {
  const fake = await startFakeRemoteService(variantId ? variant(variantId) : null);
  const dir = await mkdtemp(join(tmpdir(), 'clarity-compat-'));
  const settings = await SettingsStore.open(dir);
  await settings.update({ service: { mode: 'remote', baseUrl: fake.url } });
  const host = await createBridgeHost({
    settings,
    conversations: await ConversationStore.open(dir),
    library: await LibraryStore.open(dir),
    dataDir: dir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => settings.get().credentialPresentation),
    localService: null,
    // Long enough that only a finished answer ends a test in time; short enough to fail fast.
    stallTimeoutMs: 4_000,
    research: { pollMinMs: 20, pollLimitMs: 1_500 },
  });
  open.push({ host, fake, dir });
  const pushes: Harness['pushes'] = [];
  host.onPush((event, payload) => pushes.push({ event, payload }));
  await host.start();
  if (options.credential) expect(await host.invoke('credentials.set', { secret: TOKEN, presentAs: 'bearer' })).toMatchObject({ ok: true });
  if (options.trustOther) expect(await host.invoke('settings.setTrustedHosts', { hosts: [fake.other.url] })).toMatchObject({ ok: true });
  return { host, dir, fake, pushes };
}

interface Asked {
  final: StreamMessage;
  events: AskEvent[];
  text: string;
  citations: string[];
  confidence: number | null | undefined;
  conversation: Conversation;
}

let streamCounter = 0;
async function ask({ host, dir }: Harness, question = 'How fast is quick commerce growing in Bengaluru?', conversationId?: string): Promise<Asked> {
  const conversation = conversationId ?? ((await host.invoke('conversations.create', undefined)) as { ok: true; value: Conversation }).value.id;
  const streamId = `compat_${(streamCounter += 1)}`;
  const events: AskEvent[] = [];
  const final = await new Promise<StreamMessage>((resolve, reject) => {
    const started = host.startStream(streamId, 'ask', { question, conversationId: conversation }, (message) => {
      if (message.kind === 'events') events.push(...message.events);
      if (message.kind === 'done' || message.kind === 'error') resolve(message);
    });
    if (!started.ok) reject(new Error(started.error.message));
  });
  const stored = (await host.invoke('conversations.get', { id: conversation })) as { ok: true; value: Conversation };
  // Main saves the finished turn after the stream ends: wait until the file on disk has it.
  const onDisk = async (): Promise<string | undefined> => {
    const file = await readFile(join(dir, 'conversations', `${conversation}.json`), 'utf8').catch(() => '{"conversation":{"turns":[]}}');
    const saved = (JSON.parse(file) as { conversation: Conversation }).conversation;
    return saved.turns.length === stored.value.turns.length ? saved.turns[saved.turns.length - 1]!.answer.status : undefined;
  };
  await expect.poll(onDisk).toBe(stored.value.turns[stored.value.turns.length - 1]!.answer.status);
  const confidences = events.filter((e): e is Extract<AskEvent, { type: 'confidence' }> => e.type === 'confidence');
  return {
    final,
    events,
    text: events.map((e) => (e.type === 'text' ? e.text : '')).join(''),
    citations: events.filter((e): e is Extract<AskEvent, { type: 'citation' }> => e.type === 'citation').map((e) => e.citation.id),
    confidence: confidences.length > 0 ? confidences[confidences.length - 1]!.value : undefined,
    conversation: stored.value,
  };
}

/** The answer arrived whole, was stored as done, and kept its citation. */
function expectWholeAnswer(result: Asked): void {
  expect(result.final).toMatchObject({ kind: 'done' });
  expect(result.text).toBe(ANSWER);
  expect(result.citations).toContain(CITE);
  const turn = result.conversation.turns[result.conversation.turns.length - 1]!;
  expect(turn.answer).toMatchObject({ status: 'done', text: ANSWER });
  expect(turn.answer.citations.map((c) => c.id)).toContain(CITE);
}

async function healthView(harness: Harness): Promise<HealthView> {
  const watched = await harness.host.invoke('health.watch', undefined);
  expect(watched.ok).toBe(true);
  await expect.poll(() => harness.pushes.some((p) => p.event === 'health.updated' && ((p.payload as HealthView).rows.length > 0 || (p.payload as HealthView).error))).toBe(true);
  return [...harness.pushes].reverse().find((p) => p.event === 'health.updated')!.payload as HealthView;
}

async function research(harness: Harness, mode: 'wait' | 'queue' = 'queue'): Promise<{ run: ResearchRunSummary; report: StoredReport | null }> {
  const started = await harness.host.invoke('research.start', { topic: 'Quick commerce in Bengaluru', preset: 'standard', mode });
  expect(started.ok).toBe(true);
  const id = (started as { ok: true; value: ResearchRunSummary }).value.id;
  let run: ResearchRunSummary | undefined;
  await expect
    .poll(
      async () => {
        const list = (await harness.host.invoke('research.list', undefined)) as { ok: true; value: ResearchRunSummary[] };
        run = list.value.find((r) => r.id === id);
        return run?.state;
      },
      { timeout: 8_000 },
    )
    .toMatch(/^(completed|failed)$/);
  const report = await harness.host.invoke('research.report', { id });
  return { run: run!, report: report.ok ? (report.value as { report: StoredReport }).report : null };
}

describe('streamed answers: every shape keeps its text and citations', () => {
  it.each([
    'stream-delta-no-index',
    'stream-delta-other-type',
    'stream-flat-text',
    'stream-data-only',
    'stream-service-frames-first',
    'stream-flat-citation',
    'stream-extras',
  ])('%s', async (id) => {
    const harness = await connect(id);
    expectWholeAnswer(await ask(harness));
  });

  it.each(['stream-silence-after-stop', 'stream-pings-after-stop', 'stream-error-after-stop'])('%s: message_stop completes the answer', async (id) => {
    const harness = await connect(id);
    expectWholeAnswer(await ask(harness));
  }, 10_000);

  it('stream-frames-after-stop: a delta, citation, confidence and error sent after message_stop are ignored, none kept', async () => {
    const harness = await connect('stream-frames-after-stop');
    const result = await ask(harness);
    expect(result.final).toMatchObject({ kind: 'done' });
    expect(result.text).toBe(ANSWER);
    expect(result.confidence).toBeUndefined();
    const stored = result.conversation.turns[0]!.answer;
    expect(stored).toMatchObject({ status: 'done', text: ANSWER, confidence: null, error: null });
    expect(stored.citations).toEqual([]);
  }, 10_000);

  it('stream-flat-error: the service message is kept, with the partial text', async () => {
    const harness = await connect('stream-flat-error');
    const result = await ask(harness);
    expect(result.final).toMatchObject({ kind: 'error', incomplete: true, error: { code: 'unavailable', message: 'The answer engine is overloaded; try again in a minute.' } });
    expect(result.conversation.turns[0]!.answer).toMatchObject({ status: 'incomplete', text: 'Quick commerce orders in Bengaluru ' });
  });

  it.each(['stream-confidence-string', 'stream-confidence-object'])('%s: confidence is read as 0.72', async (id) => {
    const harness = await connect(id);
    const result = await ask(harness);
    expect(result.final).toMatchObject({ kind: 'done' });
    expect(result.text).toBe(ANSWER);
    expect(result.confidence).toBe(0.72);
    expect(result.conversation.turns[0]!.answer.confidence).toBe(0.72);
  });

  it('stream-numeric-session: a numeric session_id continues the session', async () => {
    const harness = await connect('stream-numeric-session');
    const result = await ask(harness);
    expect(result.final).toMatchObject({ kind: 'done' });
    expect(result.conversation.sessionId).toBe('4242');
  });
});

describe('JSON answers: confidence of any shape is never fatal', () => {
  it.each([
    ['json-confidence-numeric-string', 0.72],
    ['json-confidence-null', null],
    ['json-confidence-object', 0.72],
    ['json-confidence-out-of-range', null],
    ['json-confidence-words', 0.95],
  ] as const)('%s → confidence %s', async (id, expected) => {
    const harness = await connect(id);
    const result = await ask(harness);
    expectWholeAnswer(result);
    // Unreadable confidence is shown as unknown (none recorded), never a failed answer.
    expect(result.conversation.turns[0]!.answer.confidence).toBe(expected);
  });

  it('json-numeric-session: numeric session_id and {id} citations are accepted', async () => {
    const harness = await connect('json-numeric-session');
    const result = await ask(harness);
    expectWholeAnswer(result);
    expect(result.conversation.sessionId).toBe('4242');
  });
});

describe('health snapshots: only what the interface promises is required', () => {
  it.each(['health-no-generated-at', 'health-other-stat-names', 'health-stats-unnamed', 'health-oracle-minimal', 'health-list-named-feeds', 'health-numeric-cadence', 'health-other-words', 'health-no-ids'])(
    '%s: the view shows every source and the stats',
    async (id) => {
      const harness = await connect(id);
      const view = await healthView(harness);
      expect(view.error).toBeNull();
      expect(view.rows).toHaveLength(3);
      expect(view.snapshot!.stats).toMatchObject({ sources_total: 3, healthy: 1, degraded: 1, down: 1, items_per_hour: 12, signals_24h: 290 });
      expect(view.snapshot!.oracle.miss_rate).toBeCloseTo(0.04);
      expect(view.rows.map((row) => row.health).sort()).toEqual(['degraded', 'down', 'healthy']);
      expect(new Set(view.rows.map((row) => row.id)).size).toBe(3);
      expect(view.rows.map((row) => row.items_24h).sort((a, b) => a - b)).toEqual([10, 80, 200]);
    },
  );

  it('health-numeric-cadence: seconds are shown as an interval', async () => {
    const view = await healthView(await connect('health-numeric-cadence'));
    expect(view.rows.map((row) => row.cadence).sort()).toEqual(['every 1 d', 'every 1 h', 'every 15 min']);
  });

  it('health-unknown-word: the source is kept and shown as unknown, with its own word', async () => {
    const view = await healthView(await connect('health-unknown-word'));
    expect(view.rows.find((row) => row.name === 'NSE filings')).toMatchObject({ health: 'unknown', health_reported: 'maintenance' });
  });

  it('health-missing-promised: the error names the source and the missing field', async () => {
    const view = await healthView(await connect('health-missing-promised'));
    expect(view.error).toMatch(/source 2 \("Business press"\) has no items_24h/);
  });

  it('health-429-retry-after: the monitor waits as long as Retry-After says', async () => {
    const harness = await connect('health-429-retry-after');
    const before = Date.now();
    const view = await healthView(harness);
    expect(view.error).toBeTruthy();
    expect(Date.parse(view.nextRefreshAt!) - before).toBeGreaterThanOrEqual(119_000);
    expect(harness.fake.requests.filter((r) => r.path === '/api/v1/sources/health')).toHaveLength(1);
  });
});

describe('health monitor pacing (the monitor itself, with a clock it is given)', () => {
  it('health-500-repeated: backs off 10 s, 20 s, 40 s instead of retrying every 10 s', async () => {
    const fake = await startFakeRemoteService(variant('health-500-repeated'));
    const dir = await mkdtemp(join(tmpdir(), 'clarity-compat-'));
    const now = Date.parse('2026-11-21T10:00:00Z');
    const client = new RetailSignalClient({ baseUrl: fake.url });
    const monitor = await HealthMonitor.open({ dataDir: dir, client: () => client, onUpdate: () => undefined, now: () => now });
    const waits: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      await monitor.refresh();
      waits.push((Date.parse(monitor.current().nextRefreshAt!) - now) / 1000);
    }
    await monitor.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
    expect(waits).toEqual([10, 20, 40]);
    expect(monitor.current().error).toBe('Broken.');
    // One request per refresh: the client does not retry on its own under the monitor.
    expect(fake.requests).toHaveLength(3);
  });
});

describe('research: polling ends, reports of any shape are stored', () => {
  it.each(['research-poll-no-id', 'research-in-progress', 'research-report-markdown-only', 'research-report-id-citations', 'research-report-text-markdown'])('%s: the report is stored with its citations', async (id) => {
    const { run, report } = await research(await connect(id));
    expect(run).toMatchObject({ state: 'completed', error: null });
    expect(report!.markdown).toBe(REPORT_MARKDOWN);
    expect(report!.citations.map((c) => c.id).sort()).toEqual([CITE, CITE_2]);
  });

  it('research-v1-minimal: a v1 answer without counts is accepted', async () => {
    const { run, report } = await research(await connect('research-v1-minimal'), 'wait');
    expect(run).toMatchObject({ state: 'completed', citationCount: 2 });
    expect(report!.markdown).toBe(REPORT_MARKDOWN);
  });

  it.each([
    ['research-completed-no-url', /complete but gave no report_url/],
    ['research-unknown-status', /status the app cannot read \("paused_for_review"\)/],
    ['research-never-finishes', /did not finish this report within .*last status: running/],
  ] as const)('%s: polling gives up with a clear message', async (id, message) => {
    const { run } = await research(await connect(id));
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(message);
  });

  it('research-report-other-host: refused, and no credential sent, unless allow-listed', async () => {
    const refused = await connect('research-report-other-host', { credential: true });
    const { run } = await research(refused);
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(/another host .*trusted hosts in Settings/);
    expect(refused.fake.other.requests).toHaveLength(0);

    const trusted = await connect('research-report-other-host', { credential: true, trustOther: true });
    const done = await research(trusted);
    expect(done.run.state).toBe('completed');
    expect(done.report!.markdown).toBe(REPORT_MARKDOWN);
    expect(trusted.fake.other.requests.map((r) => r.path)).toEqual(['/reports/r1']);
  });

  it('research-status-other-host: polled only once allow-listed; the credential goes nowhere else', async () => {
    const refused = await connect('research-status-other-host', { credential: true });
    expect((await research(refused)).run).toMatchObject({ state: 'failed', error: expect.stringMatching(/another host/) });
    expect(refused.fake.other.requests).toHaveLength(0);

    const trusted = await connect('research-status-other-host', { credential: true, trustOther: true });
    expect((await research(trusted)).run.state).toBe('completed');
    // The allow-listed host was trusted with the credential; no other host ever saw it.
    expect(trusted.fake.other.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });
});

describe('errors and statuses', () => {
  it.each([
    ['error-402', { code: 'payment_required', status: 402, message: 'Your plan has no answers left this month.' }],
    ['error-402-bare', { code: 'payment_required', status: 402, message: expect.stringMatching(/payment or a higher plan.*402/) }],
    ['error-429-seconds', { code: 'rate_limited', retryAfterS: 17 }],
    ['error-429-no-header', { code: 'rate_limited', retryAfterS: 30 }],
  ] as const)('%s', async (id, error) => {
    const harness = await connect(id);
    const result = await ask(harness);
    expect(result.final).toMatchObject({ kind: 'error', error });
    expect(result.conversation.turns[0]!.answer.status).toBe('failed');
  });

  it('error-429-date: an HTTP-date Retry-After becomes a countdown in the status bar', async () => {
    const harness = await connect('error-429-date');
    const result = await ask(harness);
    expect(result.final).toMatchObject({ kind: 'error', error: { code: 'rate_limited' } });
    const waitS = (result.final as { error: { retryAfterS: number } }).error.retryAfterS;
    expect(waitS).toBeGreaterThan(30);
    expect(waitS).toBeLessThanOrEqual(40);
    expect(harness.host.serviceStatus().retryAt).toBeGreaterThan(Date.now());
  });

  it('strict-session-id: a follow-up falls back without session_id when a strict service refuses it', async () => {
    const harness = await connect('strict-session-id');
    const { fake } = harness;
    const first = await ask(harness);
    expectWholeAnswer(first);
    expect(first.conversation.sessionId).toBe('ses_fake');
    const followUp = await ask(harness, 'And in Pune?', first.conversation.id);
    expectWholeAnswer(followUp);
    const asks = fake.requests.filter((r) => r.path === '/api/v1/ask').map((r) => (r.body as { session_id?: string }).session_id ?? null);
    // The first turn has no session yet; the follow-up tries the extension once, then goes without.
    expect(asks).toEqual([null, 'ses_fake', null]);
    const third = await ask(harness, 'And in Chennai?', first.conversation.id);
    expect(third.final).toMatchObject({ kind: 'done' });
    expect(fake.requests.filter((r) => r.path === '/api/v1/ask')).toHaveLength(4);
  });
});

describe('an expired credential degrades, it does not blank the app', () => {
  it('credential-invalid-token: asking works anonymously and the user is told to renew', async () => {
    const harness = await connect('credential-invalid-token', { credential: true });
    const result = await ask(harness);
    expectWholeAnswer(result);
    const asks = harness.fake.requests.filter((r) => r.path === '/api/v1/ask');
    expect(asks.map((r) => r.authorization)).toEqual([`Bearer ${TOKEN}`, null]);
    const status = [...harness.pushes].reverse().find((p) => p.event === 'credentials.status')!.payload as CredentialStatus;
    expect(status).toMatchObject({ set: true, rejected: { message: expect.stringMatching(/invalid or expired.*renew/i) } });
    const fetched = await harness.host.invoke('credentials.status', undefined);
    expect(fetched).toMatchObject({ ok: true, value: { rejected: { message: expect.any(String) } } });
    // Once flagged, the next ask goes anonymous at once: no second 401.
    expectWholeAnswer(await ask(harness));
    expect(harness.fake.requests.filter((r) => r.path === '/api/v1/ask').map((r) => r.authorization)).toEqual([`Bearer ${TOKEN}`, null, null]);
    // A new credential clears the flag.
    const renewed = await harness.host.invoke('credentials.set', { secret: `${TOKEN}.renewed`, presentAs: 'bearer' });
    expect(renewed).toMatchObject({ ok: true, value: { rejected: null } });
  });

  it('credential-invalid-token: the health view still loads', async () => {
    const harness = await connect('credential-invalid-token', { credential: true });
    const view = await healthView(harness);
    expect(view.error).toBeNull();
    expect(view.rows).toHaveLength(3);
    expect(harness.pushes.some((p) => p.event === 'credentials.status' && (p.payload as CredentialStatus).rejected)).toBe(true);
  });

  it('credential-invalid-token: research (auth-only) says the credential must be renewed', async () => {
    const { run } = await research(await connect('credential-invalid-token', { credential: true }));
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(/expired/);
  });
});
