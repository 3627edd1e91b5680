/**
 * Opens a team library folder as the user running it and reports what the app would show:
 * read-only or not, why, how many items, and what saving answers. For the read-only test,
 * which runs it as an unprivileged user where the tests run as root.
 *   tsx test/support/library-open-probe.ts <teamDir> <cacheDir>
 */
import { join } from 'node:path';
import { LibraryStore } from '../../src/main/services/library/library-store';

const [dir, cacheDir] = process.argv.slice(2) as [string, string];
const store = new LibraryStore({ dir, location: { id: 'team_00000000', name: 'Retail team', kind: 'team' }, device: { id: 'probe', name: 'probe' }, cacheBase: join(cacheDir, 'team') });
await store.ready;
let saveError: string | null = null;
try {
  await store.save({ kind: 'answer', title: 'Should not be written', markdown: 'x', citations: [], createdAt: new Date().toISOString(), meta: {} });
} catch (error) {
  saveError = (error as Error).message;
}
process.stdout.write(`${JSON.stringify({ ...store.describe(), saveError, titles: store.search({}).items.map((i) => i.title) })}\n`);
await store.close();
