// Citation markers: every form a model writes ([sig_a, sig_b], (sig_a), 【sig_a】, [2]) read as the canonical `[sig_…]`.

/** A canonical marker the interface allows (`[sig_` + 16 hex) or that a model may invent (`[sig_12]`). */
export const ANY_MARKER = /\[(sig_[A-Za-z0-9_-]{1,64})\]/g;

const ID = 'sig_[A-Za-z0-9_-]{1,64}';
const LIST = `${ID}(?:\\s*[,;]\\s*(?:and\\s+)?${ID})*`;
/** `[sig_a, sig_b]`, `[sig_a; sig_b]`: one bracket, several ids. */
const BRACKET_LIST = new RegExp(`\\[\\s*(${LIST})\\s*\\]`, 'g');
/** `(sig_a)`, `(sig_a, sig_b)`, `(see sig_a)`, `(source: sig_a)`. */
const PAREN_LIST = new RegExp(`\\(\\s*(?:(?:see|source|sources|signal|signals|cited)\\s*:?\\s*)?(${LIST})\\s*\\)`, 'gi');
/** `【sig_a】`, `【sig_a, sig_b】` (the full-width brackets some models are trained on). */
const LENTICULAR = new RegExp(`【\\s*(${LIST})\\s*】`, 'g');
/** `[1]`, `[1, 3]`, `[1-2]`: the n-th signal of the evidence, as the prompt numbers them. */
const NUMBERED = /\[\s*(\d{1,3}(?:\s*(?:[,;]|–|-)\s*\d{1,3})*)\s*\]/g;
/** An id written bare in a sentence, with no brackets at all. */
const BARE_ID = /(?<![[\w])sig_[0-9a-f]{16}(?![\w\]])/g;

const canonical = (ids: string[]): string => ids.map((id) => `[${id}]`).join(' ');
const idsIn = (list: string): string[] => list.match(new RegExp(ID, 'g')) ?? [];

/**
 * The text with every citation form rewritten to canonical markers (`[sig_a] [sig_b]`). Numbered
 * markers resolve to the evidence's n-th id; a number beyond the evidence resolves to nothing and
 * is stripped, as is any id that is not in the evidence when `strip` says so. Lengths change: the
 * caller normalises text before it cuts it into sentences.
 */
export function normaliseCitations(text: string, evidenceIds: readonly string[]): string {
  if (!/sig_|\[\s*\d|【/.test(text)) return text;
  let out = text.replace(BRACKET_LIST, (_m, list: string) => canonical(idsIn(list)));
  out = out.replace(PAREN_LIST, (_m, list: string) => canonical(idsIn(list)));
  out = out.replace(LENTICULAR, (_m, list: string) => canonical(idsIn(list)));
  if (evidenceIds.length > 0) {
    out = out.replace(NUMBERED, (whole, list: string, at: number) => {
      // A markdown link's text (`[1](url)`) or a footnote reference is not a citation.
      if (out[at + whole.length] === '(' || out[at + whole.length] === ':') return whole;
      const ids: string[] = [];
      for (const part of list.split(/\s*[,;]\s*/)) {
        const range = /^(\d+)\s*[–-]\s*(\d+)$/.exec(part);
        const [from, to] = range ? [Number(range[1]), Number(range[2])] : [Number(part), Number(part)];
        for (let n = from; n <= Math.min(to, from + 20); n += 1) {
          const id = evidenceIds[n - 1];
          if (id && !ids.includes(id)) ids.push(id);
        }
      }
      return canonical(ids);
    });
  }
  out = out.replace(BARE_ID, (id) => `[${id}]`);
  // Two markers written back to back (`[sig_a][sig_b]`) read the same as with a space.
  return out.replace(/\](?=\[sig_)/g, '] ');
}

/**
 * Where a citation marker may still be growing at the end of a stream's text (`[sig_a, sig`,
 * `(si`, `【`), or -1: what follows it is held back until it closes, so a sentence never goes out
 * without the marker that was about to end it.
 */
export function openMarkerAt(text: string): number {
  return /(?:\[[^\]\n]{0,80}|\([^)\n]{0,40}|【[^】\n]{0,80}|\bsig_[0-9a-f]{0,15})$/.exec(text)?.index ?? -1;
}

/** The ids a text cites, in order, each once. */
export function citedIds(text: string): string[] {
  const ids: string[] = [];
  for (const [, id] of text.matchAll(ANY_MARKER)) if (!ids.includes(id!)) ids.push(id!);
  return ids;
}

/** The text without the markers of `ids` (and the space before each). */
export function removeMarkers(text: string, ids: string[]): string {
  let out = text;
  for (const id of ids) out = out.split(` [${id}]`).join('').split(`[${id}]`).join('');
  return out;
}
