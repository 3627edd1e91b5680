/**
 * Turning a cited answer into text to share: markdown with footnotes and a sources section,
 * or plain text with a numbered sources list. Every citation keeps its title, source, date
 * and link. Numbers follow first appearance in the text, like the chips.
 */
import { formatDate } from './format';
import type { CitationPayload } from './service-schemas';

/** A citation marker in answer text, `[sig_…]`, capturing the signal id. Global: use with matchAll and replace. */
export const CITATION_MARKER = /\[(sig_[0-9a-f]{16})\]/g;
/**
 * "18 Nov 2026" in the analyst's zone (the app's display zone; IST when none is given, see
 * src/shared/format.ts), "date unknown" when missing: exports, library files and citation lists
 * write the same calendar date the app shows for the signal (issue 43, decision 0036).
 */
export function formatCitationDate(iso: string | undefined, zone?: string): string {
  return formatDate(iso, zone);
}

/** Citations in chip order, then those the text never marks. */
export function orderedCitations<T extends CitationPayload>(text: string, citations: T[]): Array<{ number: number; citation: T }> {
  const byId = new Map(citations.map((c) => [c.id, c]));
  const order: string[] = [];
  for (const [, id] of text.matchAll(CITATION_MARKER)) if (id && !order.includes(id)) order.push(id);
  for (const citation of citations) if (!order.includes(citation.id)) order.push(citation.id);
  return order.map((id, i) => ({ number: i + 1, citation: byId.get(id) ?? ({ id } as T) }));
}

function describe(citation: CitationPayload, zone?: string): string {
  const parts = [citation.title ?? citation.id, citation.source_name ?? citation.source_id ?? 'unknown source', formatCitationDate(citation.published_at, zone)];
  return parts.join(' — ');
}

/** `zone`: the IANA zone dates are written in (the app's display zone). */
export function toMarkdownWithFootnotes(text: string, citations: CitationPayload[], options: { signalPageBase?: string; zone?: string } = {}): string {
  const ordered = orderedCitations(text, citations);
  const numbers = new Map(ordered.map(({ number, citation }) => [citation.id, number]));
  const body = text.replace(CITATION_MARKER, (_match, id: string) => `[^${numbers.get(id)}]`);
  const link = (citation: CitationPayload): string =>
    citation.url ?? (citation.slug && options.signalPageBase ? `${options.signalPageBase}/signal/${citation.slug}` : '');
  const footnotes = ordered.map(({ number, citation }) => `[^${number}]: ${describe(citation, options.zone)}${link(citation) ? `. <${link(citation)}>` : ''}`);
  const sources = ordered.map(({ number, citation }) => `${number}. ${link(citation) ? `[${citation.title ?? citation.id}](${link(citation)})` : (citation.title ?? citation.id)} — ${citation.source_name ?? citation.source_id ?? 'unknown source'}, ${formatCitationDate(citation.published_at, options.zone)} (\`${citation.id}\`)`);
  return `${body.trim()}\n\n## Sources\n\n${sources.join('\n')}\n\n${footnotes.join('\n')}\n`;
}

export function toPlainTextWithSources(text: string, citations: CitationPayload[], options: { zone?: string } = {}): string {
  const ordered = orderedCitations(text, citations);
  const numbers = new Map(ordered.map(({ number, citation }) => [citation.id, number]));
  const body = text
    .replace(CITATION_MARKER, (_match, id: string) => `[${numbers.get(id)}]`)
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/(^|\s)_(.+?)_(?=\s|$)/g, '$1$2')
    .replace(/^\|?\s*-{3,}.*$/gm, '')
    .replace(/\n{3,}/g, '\n\n');
  const sources = ordered.map(({ number, citation }) => `[${number}] ${describe(citation, options.zone)}${citation.url ? ` — ${citation.url}` : ''}`);
  return `${body.trim()}\n\nSources\n${sources.join('\n')}\n`;
}
