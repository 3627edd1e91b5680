/**
 * The eval's reader sections (issue 44): `feed_conformance` (category × field, checked / agree,
 * against feedparser's reading of the committed corpus) and `article_reader` (title, byline,
 * published time and first sentence of article pages). Both read fixtures in process.
 * FEEDPARSER_CORPUS / READABILITY_PAGES point them at the upstream corpora as well when present.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { articleMarkdown, articleMisses, runArticleReader } from './article-reader';
import { conformanceMarkdown, conformanceMisses, runConformance } from './feed-conformance';

const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '../test/fixtures');

export function readerSections(only?: string): { markdown: string; passed: boolean } {
  const parts: string[] = [];
  let passed = true;
  if (!only || only === 'feed_conformance') {
    const report = runConformance(join(FIXTURES, 'feed-conformance/corpus'), join(FIXTURES, 'feed-conformance/expected.json'));
    const misses = conformanceMisses(report);
    passed &&= misses.length === 0;
    parts.push('## feed_conformance', '', conformanceMarkdown(report), '', misses.length === 0 ? 'Every goal met.' : `Goals missed: ${misses.join('; ')}.`);
    const external = process.env.FEEDPARSER_CORPUS;
    if (external && existsSync(join(external, 'expected.json'))) {
      const upstream = runConformance(external, join(external, 'expected.json'));
      parts.push('', `### feedparser's own corpus (${external})`, '', conformanceMarkdown(upstream), '', `Goals missed there: ${conformanceMisses(upstream).join('; ') || 'none'}.`);
    }
  }
  if (!only || only === 'article_reader') {
    const report = runArticleReader(join(FIXTURES, 'article-reader'));
    const misses = articleMisses(report);
    passed &&= misses.length === 0;
    parts.push('', '## article_reader', '', articleMarkdown(report), '', misses.length === 0 ? 'Every goal met.' : `Goals missed: ${misses.join('; ')}.`);
    const external = process.env.READABILITY_PAGES;
    if (external && existsSync(external)) {
      const upstream = runArticleReader(external);
      parts.push('', `### Readability's test pages (${external})`, '', articleMarkdown(upstream), '', `Goals missed there: ${articleMisses(upstream).join('; ') || 'none'}.`);
    }
  }
  return { markdown: parts.join('\n'), passed };
}
