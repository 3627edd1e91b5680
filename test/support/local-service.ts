/** Shared helpers: one real local service per test file, on a free loopback port. */
import { inject } from 'vitest';
import { startService, type RunningService, type ServiceOptions } from '../../src/service/server';
import { openCachedSignalStore, SignalStore } from '../../src/service/signal-store';
import { FeedPage } from '../../src/shared/surface-schemas';
import { TEST_CORPUS_CODE_DIR, TEST_CORPUS_OPTIONS } from './test-corpus';

let sharedStore: SignalStore | null = null;

/**
 * The full corpus, one store per test file shared by the services it starts: read from the
 * suite's corpus cache (corpus-cache-setup.ts) when the suite made one, else generated here.
 */
export function testStore(): SignalStore {
  const cacheDir = suiteCorpusCacheDir();
  sharedStore ??= cacheDir ? openCachedSignalStore(TEST_CORPUS_OPTIONS, { dir: cacheDir, codeDir: TEST_CORPUS_CODE_DIR }).store : new SignalStore(TEST_CORPUS_OPTIONS);
  return sharedStore;
}

/** The suite's corpus cache folder; none outside a vitest run with the setup (a script importing these helpers). */
function suiteCorpusCacheDir(): string | undefined {
  try {
    return inject('testCorpusCacheDir');
  } catch {
    return undefined;
  }
}

export function startTestService(options: ServiceOptions = {}): Promise<RunningService> {
  return startService({ paceMs: 0, liveFeed: false, store: testStore(), ...options });
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

export const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content }], ...extra });

/** Raw SSE frames of a response: [event name, parsed data]. */
export function parseSseText(text: string): Array<{ event: string; data: unknown }> {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return { event, data: JSON.parse(data) as unknown };
    });
}

/** The caller's whole follow feed from `cursor` (or the start), every page read, as one page. */
export async function readFollowFeedToEnd(service: RunningService, token: string, cursor?: string): Promise<FeedPage> {
  const read = async (at?: string): Promise<FeedPage> =>
    FeedPage.parse(await (await fetch(`${service.url}/api/v1/follow/feed${at ? `?cursor=${at}` : ''}`, { headers: { authorization: `Bearer ${token}` } })).json());
  let page = await read(cursor);
  const items = [...page.items];
  while (page.has_more) {
    page = await read(page.next_cursor);
    items.push(...page.items);
  }
  return { ...page, items };
}
