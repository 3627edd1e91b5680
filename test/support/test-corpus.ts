/** The sample corpus the in-process test services share: its options, and the code its cache key covers. */
import { fileURLToPath } from 'node:url';

/** As createSignalStore({ anchor }) makes them (server.ts's corpusOptions): the default seed, size and sources. */
export const TEST_CORPUS_OPTIONS = { seed: undefined, signalCount: undefined, sourceCount: undefined, anchor: new Date('2026-11-01T00:00:00Z') };
/** The service's source: its files are hashed into the cache's key, as the CLI's are. */
export const TEST_CORPUS_CODE_DIR = fileURLToPath(new URL('../../src/service/', import.meta.url));
