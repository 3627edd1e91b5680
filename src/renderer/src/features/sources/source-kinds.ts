// The add-source and proposal forms' choices: cadences, kinds in words, a kind guessed from an address.
import { formatDuration } from '../../../../shared/format';
import type { SourceKind } from '../../../../shared/sources';

export const CADENCES = [
  { seconds: 300, label: 'every 5 min' },
  { seconds: 900, label: 'every 15 min' },
  { seconds: 3_600, label: 'every hour' },
  { seconds: 6 * 3_600, label: 'every 6 h' },
  { seconds: 86_400, label: 'once a day' },
];

export const KIND_LABELS: Record<SourceKind, string> = {
  rss: 'RSS or RDF feed',
  atom: 'Atom feed',
  jsonfeed: 'JSON Feed',
  html: 'Listing page (HTML)',
  folder: 'Folder of documents (file:///…)',
};

/** A kind from how the address looks; the analyst can change it. */
export function guessKind(url: string): SourceKind {
  const lower = url.trim().toLowerCase();
  if (lower.startsWith('file:')) return 'folder';
  if (/atom/.test(lower)) return 'atom';
  if (/\.json(\?|$)|feed\.json|jsonfeed/.test(lower)) return 'jsonfeed';
  if (/rss|\.xml(\?|$)|\/feed\/?$|rdf/.test(lower)) return 'rss';
  return 'html';
}

export function cadenceOptions(current: number) {
  return CADENCES.some((cadence) => cadence.seconds === current) ? CADENCES : [...CADENCES, { seconds: current, label: `every ${formatDuration(current)}` }].sort((a, b) => a.seconds - b.seconds);
}
