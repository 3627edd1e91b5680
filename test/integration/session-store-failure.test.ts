/**
 * The session store batches new sessions' rows and turns into one statement each (a new
 * session's first turn and its row into one). A turn that
 * cannot be written fails its own ask only: the writes queued after it still go in (a batch that
 * threw once stopped every later write, and every later ask waited for ever).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SessionStore, type SessionTurn } from '../../src/service/session-store';
import { openDatabase } from '../../src/service/store/open';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { tempDirs } from '../support/temp-dirs';

const temp = tempDirs('clarity-sessions-');
afterAll(() => temp.removeAll());
/** A data folder with the migrated empty database a first start leaves (the suite's copy): these tests are about the session store. */
const usedDir = async (): Promise<string> => seedServiceFolder(await temp.make(), { corpus: false });

const turn = (question: string): SessionTurn => ({ question, answer: `An answer to ${question}`, citations: [], confidence: 0.5, at: new Date().toISOString() });

describe('a session turn that cannot be written', () => {
  it('fails its own ask; turns and sessions after it are stored, in order, and read back after a reopen', async () => {
    const dir = await usedDir();
    const { db } = await openDatabase({ url: null, dataDir: dir });
    const store = new SessionStore(db);
    const session = await store.open(undefined, 'Zudio openings', 'analyst');
    await store.appendTurn(session, turn('first'));
    // A turn whose frame cannot be serialised (a cycle): its statement cannot even be built.
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const broken = { ...turn('broken'), frame: cycle as unknown as SessionTurn['frame'] };
    await expect(store.appendTurn(session, broken)).rejects.toThrow();
    // Everything after it still goes in.
    const other = await store.open(undefined, 'DMart results', 'analyst');
    await Promise.all([store.appendTurn(session, turn('second')), store.appendTurn(other, turn('other first'))]);
    await db.close();

    const reopened = await openDatabase({ url: null, dataDir: dir });
    const again = new SessionStore(reopened.db);
    expect((await again.get(session.id))?.turns.map((t) => t.question)).toEqual(['first', 'second']);
    expect((await again.get(other.id))?.turns.map((t) => t.question)).toEqual(['other first']);
    await reopened.db.close();
  }, 60_000);

  it("still stores a new session whose first turn fails (its row goes in with the turn, or alone when the turn cannot)", async () => {
    const dir = await usedDir();
    const { db } = await openDatabase({ url: null, dataDir: dir });
    const store = new SessionStore(db);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const broken = await store.open(undefined, 'Broken first turn', 'analyst');
    const fine = await store.open(undefined, 'Fine first turn', 'analyst');
    await expect(store.appendTurn(broken, { ...turn('broken'), frame: cycle as unknown as SessionTurn['frame'] })).rejects.toThrow();
    await store.appendTurn(fine, turn('fine'));
    // A session opened and never given a turn is stored once its ask ends (the route's persist).
    const idle = await store.open(undefined, 'No turn', 'analyst');
    await store.persist(idle);
    await store.persist(broken);
    await db.close();

    const reopened = await openDatabase({ url: null, dataDir: dir });
    const again = new SessionStore(reopened.db);
    expect((await again.get(broken.id))?.turns).toEqual([]);
    expect((await again.get(fine.id))?.turns.map((t) => t.question)).toEqual(['fine']);
    expect((await again.get(idle.id))?.slug).toBe(idle.slug);
    await reopened.db.close();
  }, 60_000);
});
