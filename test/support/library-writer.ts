/**
 * A process that writes to the library as fast as it can, for the crash test: it renames and
 * re-tags existing items and saves new ones, forever, until it is killed. It prints `ready`,
 * then `wrote` after each write, so the test can kill it after a chosen number of writes.
 *   tsx test/support/library-writer.ts <dataDir>   (library-crash runs it bundled: node-bundle.ts)
 */
import { LibraryStore } from '../../src/main/services/library/library-store';

const dataDir = process.argv[2]!;
const store = await LibraryStore.open(dataDir);
let round = 0;
process.stdout.write('ready\n');
for (;;) {
  round += 1;
  const { items } = store.search({ sort: 'date' }, 1_000);
  for (const summary of items.slice(0, 5)) {
    await store.update(summary.id, { title: `${summary.title.split(' #')[0]} #${round}`, tags: [`round-${round}`] });
    process.stdout.write('wrote\n');
  }
  await store.save({
    kind: 'answer',
    title: `Crash-test answer #${round}`,
    markdown: `Written in round ${round}. ${'Quick commerce in Bengaluru keeps growing. '.repeat(50)}[sig_0123456789abcdef]`,
    citations: [{ id: 'sig_0123456789abcdef', title: 'A signal', source_name: 'ET Retail', published_at: '2026-11-01T00:00:00Z', url: 'https://et-retail.example/x' }],
    createdAt: new Date().toISOString(),
    meta: {},
  });
  process.stdout.write('wrote\n');
}
