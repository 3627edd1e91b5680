/** Inline markdown as styled runs (bold, italic, code, links, citation numbers), for DOCX and PDF. */
import type { Token, Tokens } from 'marked';
import { CITATION_MARKER, formatCitationDate, orderedCitations } from '../../../shared/cite-format';
import type { CitationSnapshot } from '../../../shared/conversation';
import type { LibraryItem, LibraryItemKind } from '../../../shared/library';

export const SAFE_LINK = /^(?:https?:|mailto:)/i;

export interface ExportDocument {
  title: string;
  kind: LibraryItemKind;
  createdAt: string;
  markdown: string;
  citations: CitationSnapshot[];
  meta: LibraryItem['meta'];
  /** The IANA zone its dates are written in: the app's display zone (Asia/Kolkata when absent). */
  timeZone?: string;
}

/** What the document is, as an analyst would write it at the top of the page. */
const KIND_IN_WORDS: Record<LibraryItemKind, string> = { answer: 'Answer', conversation: 'Conversation', report: 'Research report' };

/** The line under every export's title, the same in each format: "Research report · 7 Dec 2026 … · exported from Clarity Desktop". */
export function subtitleOf(doc: ExportDocument): string {
  return `${KIND_IN_WORDS[doc.kind] ?? doc.kind} · ${formatCitationDate(doc.createdAt, doc.timeZone)} · exported from Clarity Desktop`;
}

export function numbering(doc: ExportDocument): { ordered: Array<{ number: number; citation: CitationSnapshot }>; numberOf: Map<string, number> } {
  const ordered = orderedCitations(doc.markdown, doc.citations);
  return { ordered, numberOf: new Map(ordered.map(({ number, citation }) => [citation.id, number])) };
}

export const sourceLine = (c: CitationSnapshot, zone?: string): string => `${c.source_name ?? c.source_id ?? 'unknown source'}, ${formatCitationDate(c.published_at, zone)}`;

/**
 * The item's text without a leading level-1 heading: every export writes the title itself,
 * so a report that starts with its own "# Title" would otherwise show it twice (issue #16).
 */
export function bodyMarkdown(doc: ExportDocument): string {
  return doc.markdown.replace(/^\s*#[ \t]+[^\n]*\n+/, '');
}

export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  link?: string;
  citation?: number;
}

export function inlineRuns(tokens: Token[] | undefined, numberOf: Map<string, number>, style: Omit<Run, 'text'> = {}): Run[] {
  const runs: Run[] = [];
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'strong':
        runs.push(...inlineRuns((token as Tokens.Strong).tokens, numberOf, { ...style, bold: true }));
        break;
      case 'em':
        runs.push(...inlineRuns((token as Tokens.Em).tokens, numberOf, { ...style, italic: true }));
        break;
      case 'del':
        runs.push(...inlineRuns((token as Tokens.Del).tokens, numberOf, style));
        break;
      case 'codespan':
        runs.push({ ...style, text: (token as Tokens.Codespan).text, code: true });
        break;
      case 'link': {
        const link = token as Tokens.Link;
        runs.push(...inlineRuns(link.tokens, numberOf, SAFE_LINK.test(link.href) ? { ...style, link: link.href } : style));
        break;
      }
      case 'br':
        runs.push({ ...style, text: '\n' });
        break;
      default: {
        const text = 'text' in token && typeof token.text === 'string' ? decodeEntities(token.text) : token.raw;
        if ('tokens' in token && Array.isArray(token.tokens) && token.tokens.length > 0 && token.type !== 'text') {
          runs.push(...inlineRuns(token.tokens as Token[], numberOf, style));
          break;
        }
        let last = 0;
        for (const match of text.matchAll(CITATION_MARKER)) {
          if (match.index! > last) runs.push({ ...style, text: text.slice(last, match.index) });
          runs.push({ ...style, text: '', citation: numberOf.get(match[1]!) });
          last = match.index! + match[0].length;
        }
        if (last < text.length) runs.push({ ...style, text: text.slice(last) });
      }
    }
  }
  return runs;
}

function decodeEntities(text: string): string {
  return text.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}
