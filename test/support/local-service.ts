/** Shared helpers: one real local service per test file, on a free loopback port. */
import { createSignalStore, startService, type RunningService, type ServiceOptions } from '../../src/service/server';
import type { SignalStore } from '../../src/service/signal-store';
import { FeedPage } from '../../src/shared/surface-schemas';

let sharedStore: SignalStore | null = null;

/** The full corpus is built once per test file and shared by the services it starts. */
export function testStore(): SignalStore {
  sharedStore ??= createSignalStore({ anchor: new Date('2026-11-01T00:00:00Z') });
  return sharedStore;
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
