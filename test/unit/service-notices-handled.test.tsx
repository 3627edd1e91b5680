/**
 * Which service notices the app handles itself and which it shows (issue 47 item 4): a deprecation
 * the app acts on (research v1 → v2) is marked handledByApp by main's notice store, kept for
 * Settings › Developer, and never put in the page; any other deprecation is put in the page's flow
 * once, until dismissed, and a dismissed one is not shown again at the next start.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClarityBridge } from '../../src/shared/bridge-contract';
import type { ServiceNotice } from '../../src/shared/service-notices';
import { RESEARCH_V1, ServiceNoticeStore } from '../../src/main/services/service-client/service-notices';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { useAppStore } from '../../src/renderer/src/store/app-store';

const SUNSET = { deprecated: true, deprecatedAt: '2026-10-01T00:00:00.000Z', sunsetAt: '2027-04-01T00:00:00.000Z', link: 'https://service.example/changelog' };
const researchV1 = { ...SUNSET, ...RESEARCH_V1 };
const otherCall = { ...SUNSET, method: 'GET', path: '/api/v1/discover' };

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'clarity-notices-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
  setBridgeForTests(null);
  useAppStore.setState({ notices: [] });
});

describe("main's notice store: handled by the app or not", () => {
  it('marks research v1 as handled by the app and any other deprecation as not', async () => {
    const store = await ServiceNoticeStore.open(dataDir);
    const handled = store.record('local', 'the local service', researchV1)!;
    const shown = store.record('local', 'the local service', otherCall)!;
    expect(handled).toMatchObject({ handledByApp: true, what: expect.stringContaining('Research reports, version 1') as string });
    expect(handled.change).toContain('nothing for you to do');
    expect(shown).toMatchObject({ handledByApp: false, what: 'GET /api/v1/discover' });
    // Research v1 on another service, or another method on its path, is not the one the app handles.
    expect(store.record('https://team.example', 'team.example', researchV1)).toMatchObject({ handledByApp: true });
    expect(store.record('local', 'the local service', { ...SUNSET, method: 'GET', path: RESEARCH_V1.path })).toMatchObject({ handledByApp: false });
    // Told once: the same announcement again is not new.
    expect(store.record('local', 'the local service', researchV1)).toBeNull();
  });

  it('keeps the marking across a restart: it is decided from the call, not stored', async () => {
    const store = await ServiceNoticeStore.open(dataDir);
    store.record('local', 'the local service', researchV1);
    store.record('local', 'the local service', otherCall);
    await store.flushed();
    expect(await readFile(join(dataDir, 'service-notices.json'), 'utf8')).not.toContain('handledByApp');
    const reopened = await ServiceNoticeStore.open(dataDir);
    expect(reopened.list('local').map((notice) => [notice.path, notice.handledByApp])).toEqual([
      [RESEARCH_V1.path, true],
      ['/api/v1/discover', false],
    ]);
  });
});

describe('the page: what the analyst is shown', () => {
  /** The renderer's store connected to a bridge that lists `listed` and pushes what the test sends. */
  function connect(listed: ServiceNotice[]): { push(notice: ServiceNotice): void; acknowledged: string[] } {
    let pushed: ((notice: ServiceNotice) => void) | null = null;
    const acknowledged: string[] = [];
    const bridge: ClarityBridge = {
      host: 'electron',
      invoke: (async (method: string, args: { id?: string }) => {
        if (method === 'notices.list') return { ok: true, value: listed };
        if (method === 'notices.acknowledge') acknowledged.push(args.id!);
        return { ok: true, value: null };
      }) as ClarityBridge['invoke'],
      startStream: async () => ({ ok: true, value: null }),
      abortStream: async () => undefined,
      onStreamMessage: () => () => undefined,
      onPush: ((channel: string, listener: (notice: ServiceNotice) => void) => {
        if (channel === 'service.notice') pushed = listener;
        return () => undefined;
      }) as ClarityBridge['onPush'],
    };
    setBridgeForTests(bridge);
    useAppStore.getState().connectServiceNotices();
    return { push: (notice) => pushed!(notice), acknowledged };
  }

  it('puts only the notices the analyst must act on in the page, once; a dismissed one is acknowledged', async () => {
    const store = await ServiceNoticeStore.open(dataDir);
    const handled = store.record('local', 'the local service', researchV1)!;
    const other = store.record('local', 'the local service', otherCall)!;
    const acknowledgedBefore = { ...store.record('https://old.example', 'old.example', otherCall)!, acknowledged: true };
    const page = connect([handled, other, acknowledgedBefore]);
    await expect.poll(() => useAppStore.getState().notices.map((n) => n.id)).toEqual([other.id]);
    expect(useAppStore.getState().notices[0]).toMatchObject({ text: 'GET /api/v1/discover', sticky: true });

    // Pushed again (a second response with the header) or pushed as handled: nothing more in the page.
    page.push(other);
    page.push(handled);
    expect(useAppStore.getState().notices.map((n) => n.id)).toEqual([other.id]);

    useAppStore.getState().dismissNotice(other.id);
    expect(useAppStore.getState().notices).toEqual([]);
    expect(page.acknowledged).toEqual([other.id]);
  });
});
