/**
 * Discover's timeline (every signal sorted newest first and listed under its filters) is not
 * built in the start's warm-up any more (decision 0040, round 8): a service that is only asked
 * questions does not build it; Discover's first page, asked before it was built, is exactly the
 * page a walk over every signal gives; and a service left quiet after its start builds it ahead
 * of Discover's first request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newestFirst, signalPredicate } from '../../src/service/follows/signal-query';
import type { RunningService } from '../../src/service/server';
import { ask, postJson, startTestService, testStore } from '../support/local-service';
import { waitFor } from '../support/wait-for';

const NOW = Date.parse('2026-10-31T12:00:00Z');
const running: RunningService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.close()));
});

async function started(discoverWarmQuietMs: number): Promise<RunningService> {
  const service = await startTestService({ now: () => NOW, extensions: { discoverWarmQuietMs } });
  running.push(service);
  await service.warmUp.whenReady();
  return service;
}

/** Discover's first page for a filter, as the app asks for it. */
async function discoverIds(service: RunningService, query: string): Promise<string[]> {
  const response = await fetch(`${service.url}/api/v1/discover?limit=25${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id);
}

/** The same page by walking every signal the store holds. */
function walked(filter: { entity?: string; city?: string }): string[] {
  const store = testStore();
  const keep = signalPredicate(store, filter);
  const until = new Date(NOW).toISOString();
  return [...store.allSignals()]
    .filter((signal) => signal.published_at <= until && keep(signal))
    .sort(newestFirst)
    .slice(0, 25)
    .map((signal) => signal.id);
}

describe("Discover's timeline after the start", () => {
  it('is not built by a start that is only asked questions; Discover asked first gives the full walk', async () => {
    const service = await started(60_000);
    const answered = await postJson(`${service.url}/api/v1/ask`, ask('How fast is DMart growing?'));
    expect(answered.status).toBe(200);
    await answered.text();
    expect(service.discoverTimelineBuilt()).toBe(false);

    // The first Discover request builds it, and its page is the walk's.
    expect(await discoverIds(service, '')).toEqual(walked({}));
    expect(service.discoverTimelineBuilt()).toBe(true);
    expect(await discoverIds(service, '&entity=DMart')).toEqual(walked({ entity: 'DMart' }));
    expect(await discoverIds(service, '&city=Pune')).toEqual(walked({ city: 'Pune' }));
  });

  it('is built ahead of Discover once nobody has asked anything for a while after the start', async () => {
    const service = await started(200);
    await waitFor(() => service.discoverTimelineBuilt(), { what: "Discover's timeline built while the service was quiet" });
    expect(await discoverIds(service, '&entity=DMart')).toEqual(walked({ entity: 'DMart' }));
  });
});
