/**
 * Markdown from the service, rendered safely and incrementally.
 *
 * SECURITY: the service's text is hostile until sanitised. marked turns it into HTML,
 * DOMPurify keeps only inert markup; links survive only as http(s)/mailto and open through
 * the bridge's allow-list, never by navigation.
 *
 * Citation chips are built as elements in the sanitised tree (never by editing HTML text), so
 * a marker inside an attribute or code stays text and the service cannot forge a chip.
 *
 * Speed (docs/decisions/conventions.md §6): finished blocks are frozen; while streaming only the unfinished tail is
 * lexed and rendered again, so the cost per delta stays flat as the answer grows.
 *
 * This file lexes and decides what to render again (IncrementalMarkdown); around it:
 * markdown-sanitize.ts (DOMPurify), markdown-builder.ts (plain markup as elements),
 * markdown-direct.ts (the direct path, without marked), citation-chips.ts (numbering, chips),
 * markdown-blocks.ts (rendered blocks and how a streamed block grows), markdown-items.ts (lists and
 * tables by their items).
 */
import { Lexer, Parser, type Token, type Tokens, type TokensList } from 'marked';
import { addChips, CitationNumbering, renderBlockHtml, sanitizeBlocksTogether, sanitizeToFragment } from './citation-chips';
import { BARE_MAX, BARE_TAGS, bareBlocks, type BlockExtra, escapeQuotes, grownByText, hasRawHtml, type InlineRun, lineStaysText, PLAIN_DELTA, type PlainAppend, type PlainTail, plainTailOf, renderByRuns, RenderedBlock } from './markdown-blocks';
import { itemHtmls, type Pieces, renderByItems } from './markdown-items';
import { builderDoc, buildPlainMarkup } from './markdown-builder';
import { directBlocks } from './markdown-direct';
import { sanitize } from './markdown-sanitize';

import { CITATION_MARKER } from '../../../../shared/cite-format';
export { CITATION_MARKER };
export { CitationNumbering, sanitizeHtmlWithChips } from './citation-chips';
export { RenderedBlock, type PlainAppend } from './markdown-blocks';

/**
 * Incremental renderer for one answer. `update(text)` returns the frozen blocks (never
 * re-rendered) and the live tail; call `finish()` when the stream ends.
 */
export class IncrementalMarkdown {
  readonly numbering = new CitationNumbering();
  /** Only ever appended to; replaced, never emptied, on a reset (React compares its identity). */
  private frozen: RenderedBlock[] = [];
  private frozenLength = 0;
  private tail: RenderedBlock[] = [];
  private lastText = '';
  /**
   * The sanitised items of the last list or table sanitised by items (renderByItems), by their
   * HTML. A hit is exactly what sanitising again would give: the same HTML, and a citation keeps
   * its number for the life of the answer.
   */
  private pieces: Pieces = new Map();
  /** Work counter: characters lexed so far (the benchmark and tests read it). */
  lexedChars = 0;
  /** Work counter: characters of HTML sanitised so far (tests read it). */
  sanitizedChars = 0;
  /** Work counter: DOMPurify calls so far, each a new inert document (the benchmark reads it). */
  sanitizeCalls = 0;
  /** Work counter: pieces of marked's plainest HTML built without DOMPurify (buildPlainMarkup). */
  builtPieces = 0;
  /** Work counter: updates that took the plain-text path (no lexing, no sanitising). */
  plainAppends = 0;
  /** The tail's shape, when plain text can be appended to it (plainTailOf). */
  private plain: PlainTail | null = null;
  /** The tail, when it is a tight list whose last item the next update may lex alone (lexLastItem). */
  private lastList: Tokens.List | null = null;

  /** Work counter: finished answers built straight from their markdown (directBlocks), without marked. */
  directAnswers = 0;

  /**
   * `plainText: false` turns the plain-text path off, `lastItem: false` the list's lexing from its last item, `builder: false` the markup builder
   * and the direct path, `direct: false` the direct path alone (tests compare; benchmarks A/B them).
   */
  constructor(private readonly options: { plainText?: boolean; lastItem?: boolean; builder?: boolean; direct?: boolean } = {}) {}

  update(text: string, streaming: boolean): { frozen: readonly RenderedBlock[]; tail: readonly RenderedBlock[] } {
    // Whether the text continues the last one (every streamed update does): the answer's whole text
    // is compared once per update, and as one equality of its start (a memory comparison in V8;
    // issue 50, round 7). `startsWith` compared it character by character, twice on a full-path
    // update (here and in appendPlain): about 70 µs of a 40 KB answer's update against 13 in Node.
    const grew = text.length >= this.lastText.length && text.slice(0, this.lastText.length) === this.lastText;
    if (streaming && this.plain && grew && this.appendPlain(text)) return { frozen: this.frozen, tail: this.tail };
    this.plain = null;
    // (The frozen blocks' text is the start of the last text: kept when the text grew, else compared.)
    if (!grew && text.slice(0, this.frozenLength) !== this.lastText.slice(0, this.frozenLength)) this.reset();
    if (!streaming && this.frozenLength === 0 && this.tail.length === 0 && this.directUpdate(text)) return { frozen: this.frozen, tail: this.tail };
    this.lastText = text;
    const rest = text.slice(this.frozenLength);
    const tokens = (streaming && this.lastList && this.lexLastItem(rest)) || this.lex(rest);
    const links = tokens.links;
    // A tight list tail, for the next update to lex from its last item (lexLastItem).
    const last = tokens.at(-1);
    this.lastList = streaming && this.options.lastItem !== false && last?.type === 'list' && !(last as Tokens.List).loose && (last as Tokens.List).items.length >= 2 && Object.keys(links).length === 0 ? (last as Tokens.List) : null;
    // While streaming, the last block may still change; everything before it is final.
    const finalCount = streaming ? Math.max(0, tokens.length - 1) : tokens.length;
    const finals: Token[] = [];
    for (let i = 0; i < finalCount; i += 1) {
      this.frozenLength += tokens[i]!.raw.length;
      if (tokens[i]!.type !== 'space') finals.push(tokens[i]!);
    }
    const previousTail = this.tail;
    const pieces: Pieces = new Map();
    this.frozen.push(...this.renderBlocks(finals, links, this.frozen.length, previousTail, pieces));
    const live = tokens.slice(finalCount).filter((token) => token.type !== 'space');
    this.tail = this.renderBlocks(live, links, this.frozen.length, previousTail, pieces);
    // Kept while the tail only grows by text (no pieces used): its items are still those pieces.
    if (pieces.size > 0) this.pieces = pieces;
    if (streaming && this.options.plainText !== false && live.length === 1 && this.tail.length === 1) this.plain = plainTailOf(live[0]!, this.tail[0]!, text);
    return { frozen: this.frozen, tail: this.tail };
  }

  /**
   * A finished answer shown whole (an appended or scrolled-to row; issue 31, round 9): built
   * straight from its markdown when it is in the plainest subset (directBlocks), as frozen blocks
   * with chips numbered in order, as renderBlocks would. False, touching nothing, otherwise.
   */
  private directUpdate(text: string): boolean {
    if (this.options.direct === false || this.options.builder === false) return false;
    const direct = directBlocks(text);
    if (!direct) return false;
    const first = this.frozen.length;
    // Numbered now, in order of appearance (as building them would), so the sources list has the
    // numbers before the blocks are built: in the page's document, when the view shows them.
    for (const marker of text.matchAll(CITATION_MARKER)) this.numbering.numberFor(marker[1]!);
    direct.forEach((block, i) => {
      const raw = block.raw;
      // The parsed block serves the first build only; a later one (rare: a test, a replaced
      // answer) parses the block's text again, so a held answer keeps its text, not its parse.
      let parsed: (typeof direct)[number] | null = block;
      const build = (doc: Document): DocumentFragment => {
        const use = parsed ?? directBlocks(raw)?.[0];
        parsed = null;
        return use ? use.build(doc, this.numbering) : doc.importNode(sanitizeToFragment(renderRaw(raw), this.numbering), true);
      };
      this.frozen.push(new RenderedBlock(first + i, build, () => renderRaw(raw)));
    });
    this.directAnswers += 1;
    this.lastText = text;
    this.frozenLength = text.length;
    this.tail = [];
    this.lastList = null;
    this.plain = null;
    return true;
  }

  private lex(markdown: string): TokensList {
    this.lexedChars += markdown.length;
    return new Lexer({ gfm: true }).lex(markdown);
  }

  /**
   * The tail is a tight list (issue 31, round 7): only its last item and what follows it are lexed
   * again, and the items before it are the last update's tokens. marked ends an item, and starts
   * the next, from the item's own lines and the list's bullet alone, and lexes each item's text
   * apart; what joins them is only the list's looseness (tight before, so the list is tight iff
   * the re-lexed part is) and the reference definitions (none in either, or this does not apply).
   * So the list is the kept items plus those lexed from the last item's start, when that part
   * lexes as a tight list with the same kind of bullet. Null, touching nothing, otherwise.
   */
  private lexLastItem(rest: string): TokensList | null {
    const list = this.lastList!;
    const kept = list.items.slice(0, -1);
    let keptLength = 0;
    for (const item of kept) keptLength += item.raw.length;
    // (A carriage return is made a line break by the lexer: raw lengths would not be the text's.)
    if (rest.length < keptLength || rest.indexOf('\r') >= 0 || !rest.startsWith(list.raw.slice(0, keptLength))) return null;
    const suffix = rest.slice(keptLength);
    this.lexedChars += suffix.length;
    const tokens = new Lexer({ gfm: true }).lex(suffix);
    const first = tokens[0];
    if (first?.type !== 'list' || Object.keys(tokens.links).length > 0) return null;
    const relexed = first as Tokens.List;
    if (relexed.loose || relexed.ordered !== list.ordered || bulletOf(relexed.items[0]!.raw) !== bulletOf(list.items[0]!.raw)) return null;
    tokens[0] = { ...relexed, start: list.start, items: [...kept, ...relexed.items], raw: rest.slice(0, keptLength) + relexed.raw } as Tokens.List;
    return tokens;
  }

  /**
   * The usual delta, without lexing, rendering or sanitising anything (issue 31): plain text
   * (PLAIN_DELTA) added to a paragraph or tight list tail whose last line stays what it was (a
   * line of text, or a list item of text: lineStaysText). Then marked's HTML for the new text is
   * the old with that text (quotes escaped) before the closing tags, and DOMPurify's tree is the
   * old one with the text appended to its last text node, which is what is done: in place (no
   * copy), the new block sharing the tree. False, touching nothing, when it does not apply.
   */
  private appendPlain(text: string): boolean {
    const plain = this.plain!;
    // (The caller checked that the text continues the last one.)
    if (text.length <= this.lastText.length) return false;
    const delta = text.slice(this.lastText.length);
    if (!PLAIN_DELTA.test(delta)) return false;
    const lineStart = text.lastIndexOf('\n') + 1;
    if (lineStart < this.frozenLength || !lineStaysText(text.slice(lineStart), plain.trims)) return false;
    // A link's title may span lines (`[a](url "title` … `more")`): a `)` could close one begun on an earlier line;
    // so may a reference definition's (`[1]: url "title` … `more"`), closed by a quote or a `)`.
    if (delta.includes(')') && text.indexOf('](', this.frozenLength) >= 0) return false;
    if (/["')]/.test(delta) && text.indexOf(']:', this.frozenLength) >= 0) return false;
    let shown = plain.pendingSpaces + delta;
    let pendingSpaces = '';
    if (plain.trims) {
      const end = shown.trimEnd().length;
      pendingSpaces = shown.slice(end);
      shown = shown.slice(0, end);
    }
    this.lastText = text;
    this.plainAppends += 1;
    plain.pendingSpaces = pendingSpaces;
    if (shown === '') return true;
    const previous = plain.block;
    const html = previous.rawHtml;
    const cut = html.length - plain.closers.length;
    const grown: PlainAppend = { from: previous, path: plain.path, length: plain.text.length, text: shown };
    plain.text.appendData(shown);
    // (A list's items as last put in stay right but for the last one, which the next replacement replaces anyway.)
    plain.block = new RenderedBlock(previous.key, previous.source, html.slice(0, cut) + escapeQuotes(shown) + html.slice(cut), { runs: previous.runs, grown, listed: previous.listed });
    this.tail = [plain.block];
    return true;
  }

  /**
   * Blocks for tokens, keyed from `firstKey`. A block whose HTML equals that of the previous
   * update's tail at the same key is that block again (a tail that froze unchanged, or a delta
   * of whitespace): not sanitised again; one that only grew by plain text is the previous tree
   * with the text appended (grownByText); a list or table that changed otherwise is sanitised
   * again only in its changed items (renderByItems). Several new blocks (a whole answer) are sanitised in
   * one call, except blocks with raw HTML, each alone, so one cannot reach into the next.
   */
  private renderBlocks(tokens: Token[], links: Lexer['tokens']['links'], firstKey: number, previousTail: readonly RenderedBlock[], pieces: Pieces): RenderedBlock[] {
    const blocks: RenderedBlock[] = [];
    let run: Array<{ key: number; html: string }> = [];
    // In order, so citation numbers still follow first appearance.
    const flush = (): void => {
      if (run.length > 0) this.sanitizeMany(run.map((b) => b.html)).forEach((fragment, n) => blocks.push(new RenderedBlock(run[n]!.key, fragment, run[n]!.html)));
      run = [];
    };
    tokens.forEach((token, i) => {
      const key = firstKey + i;
      // A list's HTML from its items' (marked's list renderer is exactly open + items + close), so
      // items kept from the last update are not rendered again.
      const listParts = token.type === 'list' ? itemHtmls(token) : null;
      const html = listParts ? listParts.open + listParts.items.join('') + listParts.close : Parser.parse(withLinks([token], links), { gfm: true, async: false });
      const previous = previousTail.find((block) => block.key === key);
      const same = previous?.rawHtml === html ? previous : undefined;
      const raw = hasRawHtml(token);
      let grown = !same && previous && !raw ? grownByText(previous, html) : null;
      let runs: InlineRun[] = grown && previous ? [...previous.runs] : [];
      // A copy grown by text keeps its items where they were (all but the last one's HTML, replaced next anyway).
      let items: Pick<BlockExtra, 'listed' | 'replaced'> = grown && previous ? { listed: previous.listed } : {};
      if (!same && !grown && previous && !raw) {
        flush(); // blocks before it get their citation numbers first
        const byItems = renderByItems(token, html, (htmls) => this.sanitizeMany(htmls), this.pieces, pieces, listParts, previous);
        if (byItems) ({ nodes: grown, ...items } = byItems);
        const byRuns = grown ? null : renderByRuns(token, html, previous.runs, (piece) => this.sanitizeBare(piece));
        if (byRuns) {
          if (byRuns.nodes.textContent?.includes('[sig_')) addChips(byRuns.nodes, this.numbering);
          ({ nodes: grown, runs } = byRuns);
        }
      }
      if (same || grown || raw) flush();
      if (same) blocks.push(same);
      else if (grown) blocks.push(new RenderedBlock(key, grown, html, { runs, ...items }));
      else if (raw) blocks.push(new RenderedBlock(key, this.sanitizeOne(html, false), html));
      else run.push({ key, html });
    });
    flush();
    return blocks;
  }

  /**
   * Several pieces of marked's own HTML (no raw HTML from the service): those the builder makes
   * are built, the rest go to DOMPurify in one call (sanitizeBlocksTogether) when there are
   * several. Round 8: a whole answer with one table no longer sends every block to DOMPurify.
   * Chips are added piece by piece in order, so citation numbers follow first appearance as one
   * walk over the whole would.
   */
  private sanitizeMany(htmls: string[]): DocumentFragment[] {
    if (htmls.length === 1) return [this.sanitizeOne(htmls[0]!)];
    const out: Array<DocumentFragment | null> = this.options.builder === false ? htmls.map(() => null) : htmls.map(buildPlainMarkup);
    const rest = htmls.filter((_, i) => out[i] === null);
    this.builtPieces += htmls.length - rest.length;
    if (rest.length > 0) {
      this.sanitizedChars += rest.reduce((n, html) => n + html.length, 0);
      this.sanitizeCalls += 1;
      const purified = rest.length === 1 ? [sanitize(rest[0]!)] : sanitizeBlocksTogether(rest);
      let next = 0;
      for (let i = 0; i < out.length; i += 1) out[i] ??= purified[next++]!;
    }
    return out.map((fragment) => {
      if (fragment!.textContent?.includes('[sig_')) addChips(fragment!, this.numbering);
      return fragment!;
    });
  }

  /** `build: false` for a block with raw HTML from the service: DOMPurify alone, always. */
  private sanitizeOne(html: string, build = true): DocumentFragment {
    const built = !build || this.options.builder === false ? null : buildPlainMarkup(html);
    if (built) return this.withChips(built);
    // A block just begun is often only bare tags (`<h3></h3>`, an empty list item): DOMPurify
    // makes the same tree of the same string under the same configuration, and with no text there
    // is no chip, so a copy of the first result is that tree (round 7: one document fewer when a
    // block ends and the next begins in one delta). A copy: the plain-text path appends to it.
    if (html.length <= BARE_MAX && BARE_TAGS.test(html)) {
      let bare = bareBlocks.get(html);
      if (!bare) {
        bare = sanitizeToFragment(html, this.numbering);
        // Kept in the builder's own document, so DOMPurify's inert document is not held for the page's life.
        if (bareBlocks.size < 64) bareBlocks.set(html, builderDoc().importNode(bare, true));
        this.sanitizeCalls += 1;
      }
      return bare.cloneNode(true) as DocumentFragment;
    }
    this.sanitizedChars += html.length;
    this.sanitizeCalls += 1;
    return sanitizeToFragment(html, this.numbering);
  }

  /** marked's plainest HTML, built (buildPlainMarkup), with its chips as sanitizeToFragment adds them. */
  private withChips(fragment: DocumentFragment): DocumentFragment {
    this.builtPieces += 1;
    if (fragment.textContent?.includes('[sig_')) addChips(fragment, this.numbering);
    return fragment;
  }

  /** Sanitised, without chips (renderByRuns adds them over the whole block). */
  private sanitizeBare(html: string): DocumentFragment {
    const built = this.options.builder === false ? null : buildPlainMarkup(html);
    if (built) {
      this.builtPieces += 1;
      return built;
    }
    this.sanitizedChars += html.length;
    this.sanitizeCalls += 1;
    return sanitize(html);
  }

  private reset(): void {
    this.plain = null;
    this.lastList = null;
    this.pieces = new Map();
    this.frozen = [];
    this.frozenLength = 0;
    this.tail = [];
  }
}

/** A list item's bullet as marked tells lists apart: `-`, `+` or `*`, or an ordered item's `.` or `)`. */
function bulletOf(raw: string): string {
  const bullet = /^ {0,3}(?:([-+*])|\d{1,9}([.)]))/.exec(raw);
  return bullet ? (bullet[1] ?? bullet[2]!) : '';
}

function withLinks(tokens: Token[], links: Lexer['tokens']['links']): Token[] & { links: Lexer['tokens']['links'] } {
  return Object.assign(tokens, { links });
}

/** marked's HTML for a block's markdown. */
function renderRaw(raw: string): string {
  return Parser.parse(new Lexer({ gfm: true }).lex(raw), { gfm: true, async: false });
}

/** Sanitised HTML for a whole markdown text at once (saved items, exports). */
export function renderMarkdownHtml(text: string, numbering = new CitationNumbering()): string {
  const tokens = new Lexer({ gfm: true }).lex(text);
  return renderBlockHtml(tokens, numbering);
}
