/** The words a question or a signal is searched by: lower case, no stop words, lightly stemmed (search-index.ts). */

export const STOPWORDS = new Set(
  'a an and are as at be by did do does for from has have how in is it its of on or that the their this to was were what when where which who why will with about across over than into vs versus fast much many latest recent tell me show give'.split(
    ' ',
  ),
);

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.toLowerCase().normalize('NFKD').split(/[^a-z0-9]+/)) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    tokens.push(stem(raw));
  }
  return tokens;
}

/** A light suffix stemmer: enough to match growing/grows/growth and stores/store. */
function stem(token: string): string {
  if (token.length > 5 && token.endsWith('ing')) return token.slice(0, -3);
  if (token.length > 4 && token.endsWith('ies')) return `${token.slice(0, -3)}y`;
  if (token.length > 4 && token.endsWith('th') && token.startsWith('grow')) return 'grow';
  if (token.length > 3 && token.endsWith('s') && !token.endsWith('ss')) return token.slice(0, -1);
  return token;
}
