/** The e2e suite's setup: one warmed sample corpus for every fresh app (warm-corpus.ts); removed at the end. */
import { prepareWarmCorpus, removeWarmCorpus, WARM_CORPUS_ENV } from './warm-corpus';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const { dir, file } = await prepareWarmCorpus();
  process.env[WARM_CORPUS_ENV] = file;
  return () => removeWarmCorpus(dir);
}
