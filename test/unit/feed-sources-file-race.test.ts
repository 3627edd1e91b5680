/**
 * Two processes of a team server started at once with the same sources file (found by
 * team-server-feeds in a clean-clone run once starts got faster): each read the stored sources
 * before the other added one, so the second's insert was refused and its start failed with
 * 'A source with id "feed-4" already exists.'. Here two feed services share one repository (the
 * database's part is the insert that says "taken"); neither is started, so nothing is fetched.
 */
import { describe, expect, it } from 'vitest';
import { FeedService } from '../../src/service/feed/feed-service';
import { InMemoryFeedRepository } from '../../src/service/feed/feed-repository';
import { createSignalStore } from '../../src/service/server';

describe('a sources file applied by two processes at once', () => {
  it('stores each source once and starts both, the second following the stored definition', async () => {
    const repository = new InMemoryFeedRepository();
    const store = createSignalStore({ signalCount: 0 });
    const a = new FeedService({ store, repository });
    const b = new FeedService({ store, repository });
    await Promise.all([a.load(), b.load()]);
    const entry = { id: 'feed-4', name: 'Retail wire', kind: 'rss' as const, url: 'https://example.org/feed.xml' };
    await a.ensure(entry);
    // b read the repository before a's insert: it must not fail, and must now know the source.
    await expect(b.ensure({ ...entry, name: 'Retail wire (renamed)' })).resolves.toMatchObject({ id: 'feed-4', name: 'Retail wire (renamed)' });
    expect((await repository.loadSources()).map((stored) => stored.source.id)).toEqual(['feed-4']);
    expect(b.source('feed-4')).toMatchObject({ id: 'feed-4' });
    await Promise.all([a.close(), b.close()]);
  });

  it('still refuses a second add of the same id through the admin path', async () => {
    const repository = new InMemoryFeedRepository();
    const feed = new FeedService({ store: createSignalStore({ signalCount: 0 }), repository });
    await feed.load();
    const entry = { id: 'feed-5', name: 'Second wire', kind: 'rss' as const, url: 'https://example.org/second.xml' };
    await feed.add(entry);
    await expect(feed.add(entry)).rejects.toThrow('A source with id "feed-5" already exists.');
    await feed.close();
  });
});
