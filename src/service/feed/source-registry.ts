/** Sources are data, not code: their shape, as read from a sources file or the admin API. */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

export const FEED_KINDS = ['rss', 'atom', 'jsonfeed', 'html', 'folder'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export const SourceDefinition = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, - and _ (up to 63)').optional(),
  name: z.string().trim().min(1).max(200),
  kind: z.enum(FEED_KINDS),
  url: z.string().trim().min(1).max(2_000),
  /** Seconds between fetches (60 s to 7 days). */
  cadence_s: z.number().int().min(1).max(7 * 86_400).default(900),
  role: z.enum(['primary', 'oracle']).default('primary'),
  item_selector: z.string().max(500).optional(),
  paused: z.boolean().default(false),
});
export type SourceDefinitionInput = z.input<typeof SourceDefinition>;

export interface FeedSourceRecord {
  id: string;
  name: string;
  kind: FeedKind;
  url: string;
  cadence_s: number;
  role: 'primary' | 'oracle';
  item_selector?: string;
  paused: boolean;
  created_at: string;
}

export const SourcesFile = z.object({ sources: z.array(SourceDefinition) });

export const SourcePatch = z
  .object({ name: z.string().trim().min(1).max(200).optional(), cadence_s: z.number().int().min(1).max(7 * 86_400).optional(), paused: z.boolean().optional() })
  .strict();

/** Why a URL cannot be a source of this kind, or null. */
export function urlProblem(kind: FeedKind, raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw}" is not a URL.`;
  }
  if (kind === 'folder') return url.protocol === 'file:' ? null : 'A folder source needs a file:/// URL.';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `A ${kind} source needs an http or https URL.`;
  return null;
}

export function newSourceId(name: string): string {
  const stem = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'source';
  return `${stem}-${randomBytes(3).toString('hex')}`;
}

/**
 * The id of a sources-file entry that names none: the same at every start, derived from its URL
 * alone (renaming the entry keeps its source, its state and history).
 */
export function fileSourceId(url: string): string {
  let host = 'folder';
  try {
    host = new URL(url).hostname || 'folder';
  } catch {
    // urlProblem has refused it already; the hash still names it.
  }
  const stem = host.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'source';
  return `${stem}-${createHash('sha256').update(url).digest('hex').slice(0, 8)}`;
}

/** "every 15 min" and the like, for the snapshot's `cadence`. */
export function cadenceText(seconds: number): string {
  if (seconds % 86_400 === 0) return `every ${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `every ${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `every ${seconds / 60} min`;
  return `every ${seconds} s`;
}
