/**
 * Plain text from whatever markup a source used, for a signal's title, summary and body: HTML
 * (and XHTML) through htmlparser2's tokenizer, Markdown through marked's lexer, never hand regexes
 * over markup. Headings become sentences, list items and paragraphs become lines, links keep their
 * words, images their alt text; scripts, styles and embeds are dropped and nothing is executed.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { Parser } from 'htmlparser2';

/** Runs of whitespace as one space, trimmed. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'form', 'head', 'title', 'button', 'select']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const BLOCKS = new Set(['p', 'br', 'li', 'div', 'tr', 'blockquote', 'section', 'article', 'ul', 'ol', 'table', 'dt', 'dd', 'pre', 'header', 'footer', 'figure', 'figcaption', 'hr', 'main', 'aside', 'nav', 'address', 'dl', 'body', 'html']);
const CELLS = new Set(['td', 'th']);

/** A heading as a sentence: it ends with a full stop unless it already ends a sentence. */
function asSentence(line: string): string {
  const text = collapse(line);
  return !text || /[.!?:;…।"'”’)]$/.test(text) ? text : `${text}.`;
}

/** Lines of text from HTML: each block on its own line, each heading a sentence (also put in `headings`). */
function htmlLines(html: string, headings?: string[]): string[] {
  const lines: string[] = [];
  let current = '';
  let heading = 0;
  let skipping = 0;
  const flush = (): void => {
    const line = heading > 0 ? asSentence(current) : collapse(current);
    if (line) lines.push(line);
    if (line && heading > 0) headings?.push(line);
    current = '';
  };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (SKIPPED.has(name)) skipping += 1;
        else if (skipping > 0) return;
        else if (HEADINGS.has(name)) {
          flush();
          heading += 1;
        } else if (BLOCKS.has(name)) flush();
        else if (CELLS.has(name)) current += ' ';
        else if (name === 'img' && attribs.alt) current += ` ${attribs.alt} `;
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (skipping > 0) return;
        else if (HEADINGS.has(name)) {
          flush();
          heading = Math.max(0, heading - 1);
        } else if (BLOCKS.has(name)) flush();
        else if (CELLS.has(name)) current += ' ';
      },
      ontext(text) {
        if (skipping === 0) current += text;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return lines;
}

function inlineText(tokens: Token[] | undefined, fallback = ''): string {
  if (!tokens) return decodeEntities(fallback);
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        out += 'tokens' in token && token.tokens ? inlineText(token.tokens) : decodeEntities(token.text);
        break;
      case 'strong':
      case 'em':
      case 'del':
      case 'link':
        out += inlineText((token as Tokens.Strong).tokens, (token as Tokens.Strong).text);
        break;
      case 'image':
        out += (token as Tokens.Image).text;
        break;
      case 'codespan':
      case 'escape':
        out += decodeEntities((token as Tokens.Codespan).text);
        break;
      case 'br':
        out += ' ';
        break;
      case 'html':
        out += ` ${htmlLines((token as Tokens.HTML).text).join(' ')} `;
        break;
      default:
        out += 'text' in token && typeof token.text === 'string' ? decodeEntities(token.text) : '';
    }
  }
  return out;
}

function blockLines(tokens: Token[], lines: string[], headings?: string[]): void {
  for (const token of tokens) {
    switch (token.type) {
      case 'heading': {
        const line = asSentence(inlineText((token as Tokens.Heading).tokens, (token as Tokens.Heading).text));
        lines.push(line);
        headings?.push(line);
        break;
      }
      case 'paragraph':
        lines.push(collapse(inlineText((token as Tokens.Paragraph).tokens, (token as Tokens.Paragraph).text)));
        break;
      case 'list':
        for (const item of (token as Tokens.List).items) blockLines(item.tokens, lines, headings);
        break;
      case 'blockquote':
        blockLines((token as Tokens.Blockquote).tokens, lines, headings);
        break;
      case 'code':
        lines.push(...(token as Tokens.Code).text.split('\n').map(collapse));
        break;
      case 'table': {
        const table = token as Tokens.Table;
        for (const row of [table.header, ...table.rows]) lines.push(collapse(row.map((cell) => inlineText(cell.tokens, cell.text)).join(' · ')));
        break;
      }
      case 'html':
        lines.push(...htmlLines((token as Tokens.HTML).text, headings));
        break;
      case 'text':
        lines.push(collapse(inlineText((token as Tokens.Text).tokens, (token as Tokens.Text).text)));
        break;
      default:
        break;
    }
  }
}

/** HTML character references in Markdown text ("&amp;", "&#8217;") as characters. */
function decodeEntities(text: string): string {
  return text.includes('&') ? htmlLines(text.replace(/</g, '&lt;')).join(' ') : text;
}

/** What marks text as Markdown: a heading, emphasis, a link, a list or quote line, code. */
const MARKDOWN = /(^|\n)\s{0,3}(#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|>|```|~~~)|\*\*|__|\]\(|`|(^|\s)[*_][^\s*_]|\|\s*---|(^|\n)\s*(-{3,}|={3,})\s*(\n|$)/;

/**
 * Any source markup as plain text: lines (blocks, list items, headings as sentences) joined by
 * newlines, each line's whitespace collapsed. Text with no markup comes back collapsed, at once.
 */
export function toPlainText(source: string | null | undefined, headings?: string[]): string {
  if (!source) return '';
  let text = source;
  if (/<\/?[a-z][\w:-]*[\s/>]|&(#\d+|#x[\da-f]+|[a-z][a-z\d]+);/i.test(text)) text = htmlLines(text, headings).join('\n');
  if (!MARKDOWN.test(text)) return text.split('\n').map(collapse).filter(Boolean).join('\n');
  const lines: string[] = [];
  try {
    blockLines(new Lexer({ gfm: true }).lex(text), lines, headings);
  } catch {
    return text.split('\n').map(collapse).filter(Boolean).join('\n');
  }
  return lines.filter(Boolean).join('\n');
}

/**
 * Plain text for a lead (a signal's summary): as toPlainText, without the headings that open it
 * ("VMM sets out its plan" above the article's first paragraph), unless headings are all it has.
 * A summary is read beside the item's own title, where an opening heading reads as a bare line.
 */
export function toPlainLead(source: string | null | undefined): string {
  const headings: string[] = [];
  return withoutOpeningHeadings(toPlainText(source, headings), headings);
}

/** Plain text (from toPlainText) without the opening lines that were these headings, unless they are all of it. */
export function withoutOpeningHeadings(plain: string, headings: string[]): string {
  if (headings.length === 0) return plain;
  const lines = plain.split('\n');
  const opening = new Set(headings);
  let first = 0;
  while (first < lines.length - 1 && opening.has(lines[first]!)) first += 1;
  return first === 0 ? plain : lines.slice(first).join('\n');
}

/** One line of plain text (titles, summaries). */
export function toPlainLine(source: string | null | undefined): string {
  return collapse(toPlainText(source));
}
