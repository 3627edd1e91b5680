/**
 * Quit against a service that takes requests and never answers them: BridgeHost.dispose()
 * aborts every request it would wait for (the watchlist's feed read, the health refresh, research
 * status and report reads, cited signals' lookups of a report and of an answer, a follow or an
 * unfollow the analyst had just asked for) instead of
 * waiting out their deadlines (8 s for health, 15 s for the rest), and what had already arrived
 * is on disk when it resolves: the feed page read before the hung one, a report fetched whole
 * (its citations as the report gave them), an answer that had ended. Runs whose status or report
 * had not come stay queued, to be polled again at the next start.
 * Real HTTP on 127.0.0.1 (test/support/fake-remote-service.ts), real files in a temp directory.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBridgeHost } from '../../src/main/compose-services';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import type { StreamMessage } from '../../src/shared/bridge-contract';
import type { ResearchRunSummary, StoredReport } from '../../src/shared/research';
import type { WatchlistItem } from '../../src/shared/watchlist';
import { ANSWER, CITE, CITE_2, hang, json, REPORT_MARKDOWN, startFakeRemoteService, type FakeRemoteService, type FakeRoutes } from '../support/fake-remote-service';
import { fileSnapshot } from '../support/data-files';

const dirs: string[] = [];
const services: FakeRemoteService[] = [];

afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const FOLLOW = { id: 'fol_0123456789abcdef', target: { type: 'entity', value: 'Zudio' }, created_at: '2026-11-01T00:00:00.000Z' };
const FEED_ITEM = {
  signal: {
    id: 'sig_00000000000000f1', slug: 'zudio-pune', title: 'Zudio opens in Pune', summary: 'Two stores.', published_at: '2026-11-02T00:00:00.000Z',
    source: { id: 'src_press', name: 'Business press' }, entities: { retailers: ['Zudio'], segments: [], cities: ['Pune'], states: [] }, metrics: {}, url: 'https://press.example/f1',
  },
  matched: [FOLLOW.id],
  arrived_at: '2026-11-02T00:05:00.000Z',
};

/**
 * Not a timing measurement: without abort signals dispose cannot resolve before the first
 * request deadline (8 s, health), so a bound below it tells the two apart under any load.
 */
const BELOW_EVERY_DEADLINE_MS = 6_000;

async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not resolve within ${ms} ms: it waited for a request's own deadline`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('dispose against a service that never answers', () => {
  it('aborts every request it waits for, and keeps what had arrived', async () => {
    const { handler: never, hung } = hang();
    const routes: FakeRoutes = {
      'GET /api/v1/follow': (_q, response) => json(response, 200, { follows: [FOLLOW], tier: 'free', limit: 10 }),
      // The first page answers (and says there is more); the second never does.
      'GET /api/v1/follow/feed': (request, response, context) =>
        context.count === 1 ? json(response, 200, { items: [FEED_ITEM], next_cursor: '1', has_more: true }) : never(request, response, context),
      'GET /api/v1/sources/health': never,
      'POST /api/v2/research': (request, response) => {
        const topic = (request.body as { topic?: string }).topic;
        json(response, 202, { status: 'queued', status_url: topic === 'Status never comes' ? '/api/v1/research/rpoll' : '/api/v1/research/rreport' });
      },
      'GET /api/v1/research/rpoll': never,
      'GET /api/v1/research/rreport': (_q, response) => json(response, 200, { id: 'rreport', status: 'completed', report_url: '/api/v1/research/rreport/report' }),
      'GET /api/v1/research/rreport/report': never,
      // v1 answers with a report (the fake's default) whose cited signals' lookups, like the answer's, never end.
      'GET /api/v1/signals/*': never,
      // A follow and an unfollow the analyst started just before quitting.
      'POST /api/v1/follow': never,
      'DELETE /api/v1/follow/*': never,
    };
    const service = await startFakeRemoteService({ id: 'hung', area: 'errors', description: 'takes requests and never answers some', routes });
    services.push(service);
    const dir = await mkdtemp(join(tmpdir(), 'clarity-dispose-hung-'));
    dirs.push(dir);
    const settings = await SettingsStore.open(dir);
    await settings.update({ service: { mode: 'remote', baseUrl: service.url } });
    const conversations = await ConversationStore.open(dir);
    const host = await createBridgeHost({
      settings, conversations, library: await LibraryStore.open(dir), dataDir: dir,
      credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'bearer'),
      localService: null,
      research: { pollMinMs: 10 },
    });
    await host.start(); // ready: the watchlist starts polling

    expect(await host.invoke('health.watch', undefined)).toMatchObject({ ok: true });
    const start = async (topic: string, mode: 'wait' | 'queue'): Promise<string> => {
      const started = await host.invoke('research.start', { topic, preset: 'standard', mode });
      if (!started.ok) throw new Error(started.error.message);
      return (started.value as ResearchRunSummary).id;
    };
    const pollRun = await start('Status never comes', 'queue');
    const reportRun = await start('Report never comes', 'queue');
    const lookupRun = await start('Lookups never end', 'wait');
    const conversation = await conversations.create();
    const events: StreamMessage[] = [];
    expect(host.startStream('stream_hung', 'ask', { question: 'Quick commerce in Bengaluru?', conversationId: conversation.id }, (message) => void events.push(message))).toEqual({ ok: true, value: null });

    const following = host.invoke('watchlist.follow', { type: 'entity', value: 'Trends' });
    const unfollowing = host.invoke('watchlist.unfollow', { id: FOLLOW.id });

    // Nine requests hang: the second feed page, health, a status, a report, the lookups of the
    // v1 report's two citations and of the answer's one, a follow and an unfollow.
    await expect.poll(() => hung.taken.length, { timeout: 20_000 }).toBe(9);
    expect(hung.taken.filter((taken) => taken.startsWith('GET /api/v1/signals/')).sort()).toEqual([`GET /api/v1/signals/${CITE}`, `GET /api/v1/signals/${CITE}`, `GET /api/v1/signals/${CITE_2}`]);

    const began = performance.now();
    await within(host.dispose(), BELOW_EVERY_DEADLINE_MS, 'dispose');
    console.log(`dispose against a hung service: ${Math.round(performance.now() - began)} ms (load ${(await readFile('/proc/loadavg', 'utf8')).split(' ')[0]})`);
    // The client gave up each one (dispose aborted it), rather than the service ending them.
    await expect.poll(() => hung.closedByClient()).toBe(9);
    // The follow and the unfollow end with an error the analyst can read, not at their deadline.
    for (const pending of [following, unfollowing]) expect(await within(pending, 1_000, 'a follow change after dispose')).toMatchObject({ ok: false });

    // The feed page that had arrived is on disk, unread, with its cursor.
    const watchlist = JSON.parse(await readFile(join(dir, 'watchlist.json'), 'utf8')) as { cursor: string; items: WatchlistItem[] };
    expect(watchlist.cursor).toBe('1');
    expect(watchlist.items.map((item) => [item.signal.id, item.read])).toEqual([[FEED_ITEM.signal.id, false]]);

    // Research: the fetched report is stored (its citations as the report gave them); the runs
    // whose status or report had not come stay queued for the next start.
    const runs = new Map((JSON.parse(await readFile(join(dir, 'research', 'runs.json'), 'utf8')) as ResearchRunSummary[]).map((run) => [run.id, run]));
    expect(runs.get(pollRun)).toMatchObject({ state: 'queued', statusUrl: `${service.url}/api/v1/research/rpoll`, error: null });
    expect(runs.get(reportRun)).toMatchObject({ state: 'queued', statusUrl: `${service.url}/api/v1/research/rreport`, error: null });
    expect(runs.get(lookupRun)).toMatchObject({ state: 'completed', citationCount: 2 });
    const report = JSON.parse(await readFile(join(dir, 'research', 'reports', `${lookupRun}.json`), 'utf8')) as StoredReport;
    expect(report.markdown).toBe(REPORT_MARKDOWN);
    expect(report.citations.map((citation) => [citation.id, citation.title])).toEqual([[CITE, 'Dark stores double'], [CITE_2, 'Delivery times fall']]);

    // The answer had ended (message_stop) before dispose: it is saved whole, as done.
    expect(events.at(-1)).toMatchObject({ kind: 'done' });
    const saved = (await ConversationStore.open(dir)).get(conversation.id)!;
    expect(saved.turns[0]!.answer).toMatchObject({ status: 'done', text: ANSWER });

    // And nothing is written after dispose resolved.
    // A write the host still had coming would follow one of those aborts, all seen above; a
    // round trip to the service made now comes after them (and after any poll the research
    // service, polling every 10 ms, would wrongly still send).
    const before = await fileSnapshot(dir);
    const requestsBefore = hung.taken.length;
    expect((await fetch(`${service.url}/api/v1/follow`)).status).toBe(200);
    expect(hung.taken.length).toBe(requestsBefore);
    expect(await fileSnapshot(dir)).toEqual(before);
  });
});
