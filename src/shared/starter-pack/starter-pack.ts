/**
 * The starter pack (issue 47, item 3): public sources on India's retail sector an analyst can pick
 * from on a fresh install, read from its data file and checked here, so a bad entry fails a test
 * rather than the view. Nothing is fetched until one is picked (the Sources view previews it).
 */
import { z } from 'zod';
import { SOURCE_KINDS } from '../sources';
import pack from './india-retail-sources.json' with { type: 'json' };

export const StarterSource = z.object({
  name: z.string().min(1).max(200),
  /** What kind of publisher: the view groups entries by it. */
  group: z.string().min(1).max(100),
  kind: z.enum(SOURCE_KINDS),
  url: z.string().url().startsWith('https://'),
  /** Where the publisher documents this address (its feed list, or the listing page itself). */
  documented: z.string().url().startsWith('https://'),
});
export type StarterSource = z.infer<typeof StarterSource>;

export const StarterPack = z.object({ title: z.string(), about: z.string(), sources: z.array(StarterSource).min(10) });
export type StarterPack = z.infer<typeof StarterPack>;

export const STARTER_PACK: StarterPack = StarterPack.parse(pack);
