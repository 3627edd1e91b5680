/** The e2e suite's setup: one warmed sample corpus and first-start database for every fresh app (warm-corpus.ts); removed at the end. */
import { codeInUse } from '../support/built-code';
import { prepareWarmCorpus, prepareWarmDatabase, removeWarmCorpus, WARM_CORPUS_ENV, WARM_DATABASE_ENV } from './warm-corpus';

export default async function globalSetup(): Promise<() => Promise<void>> {
  // The apps run the build when it is fresh, else the source (test/support/built-code.ts): said once, in the suite's log.
  console.log(`e2e: the apps run ${codeInUse()}`);
  const { dir, file } = await prepareWarmCorpus();
  process.env[WARM_CORPUS_ENV] = file;
  const database = await prepareWarmDatabase(dir);
  if (database) process.env[WARM_DATABASE_ENV] = database;
  return () => removeWarmCorpus(dir);
}
