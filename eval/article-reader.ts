/**
 * Article reader conformance: each page directory (source.html, expected-metadata.json with
 * title / byline / publishedTime, expected.html with the article) read by the service's own
 * article reader (`readArticle`, as the listing and folder sources call it) and compared: title,
 * byline, published time, and the expected text's first sentence found in the text read.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readArticle } from '../src/service/feed/document-readers';
import { toPlainText } from '../src/service/feed/plain-text';

interface Tally {
  checked: number;
  agree: number;
}

export interface ArticleReport {
  pages: number;
  crashes: string[];
  slowest_ms: number;
  fields: Record<'title' | 'byline' | 'published' | 'first_sentence', Tally>;
  misses: Array<{ page: string; field: string; expected: string; got: string }>;
}

function norm(text: string | null | undefined): string {
  return (text ?? '').normalize('NFKC').replace(/[\s\u00a0]+/g, ' ').replace(/[“”]/g, '"').replace(/[‘’]/g, "'").trim().toLowerCase();
}

function firstSentence(html: string): string {
  const text = toPlainText(html).replace(/\n/g, ' ');
  const match = /^(.{20,}?[.!?])(\s|$)/.exec(text);
  return (match ? match[1]! : text.slice(0, 120)).trim();
}

export function runArticleReader(dir: string): ArticleReport {
  const report: ArticleReport = { pages: 0, crashes: [], slowest_ms: 0, fields: { title: { checked: 0, agree: 0 }, byline: { checked: 0, agree: 0 }, published: { checked: 0, agree: 0 }, first_sentence: { checked: 0, agree: 0 } }, misses: [] };
  for (const page of readdirSync(dir).sort()) {
    const source = join(dir, page, 'source.html');
    const metadataPath = join(dir, page, 'expected-metadata.json');
    if (!existsSync(source) || !existsSync(metadataPath)) continue;
    const expected = JSON.parse(readFileSync(metadataPath, 'utf8')) as { title?: string | null; byline?: string | null; publishedTime?: string | null; readerable?: boolean };
    report.pages += 1;
    const started = performance.now();
    let article: ReturnType<typeof readArticle> | null = null;
    try {
      article = readArticle(readFileSync(source, 'utf8'), 'http://fakehost/test/page.html');
    } catch (error) {
      report.crashes.push(`${page}: ${error instanceof Error ? error.message : String(error)}`);
    }
    report.slowest_ms = Math.max(report.slowest_ms, performance.now() - started);
    const count = (field: keyof ArticleReport['fields'], ok: boolean, want: string, got: string): void => {
      report.fields[field].checked += 1;
      if (ok) report.fields[field].agree += 1;
      else report.misses.push({ page, field, expected: want, got });
    };
    if (expected.title) count('title', norm(article?.title) === norm(expected.title), expected.title, article?.title ?? '');
    if (expected.byline) count('byline', norm(article?.byline) === norm(expected.byline), expected.byline, article?.byline ?? '');
    if (expected.publishedTime) {
      const want = Date.parse(expected.publishedTime);
      const got = article?.published ? Date.parse(article.published) : Number.NaN;
      count('published', got === want || norm(article?.published) === norm(expected.publishedTime), expected.publishedTime, article?.published ?? '');
    }
    const expectedHtml = join(dir, page, 'expected.html');
    if (existsSync(expectedHtml) && expected.readerable !== false) {
      const sentence = firstSentence(readFileSync(expectedHtml, 'utf8'));
      if (sentence) count('first_sentence', norm(article?.text).includes(norm(sentence)), sentence, (article?.text ?? '').slice(0, 160));
    }
  }
  return report;
}

export const ARTICLE_GOALS = { title: 0.95, byline: 0.8, published: 0.8, first_sentence: 0.95 } as const;

export function articleMisses(report: ArticleReport): string[] {
  const misses: string[] = [];
  if (report.crashes.length > 0) misses.push(`${report.crashes.length} crashes`);
  for (const [field, goal] of Object.entries(ARTICLE_GOALS) as Array<[keyof typeof ARTICLE_GOALS, number]>) {
    const tally = report.fields[field];
    if (tally.checked > 0 && tally.agree / tally.checked < goal) misses.push(`${field} ${tally.agree}/${tally.checked} < ${goal * 100} %`);
  }
  return misses;
}

export function articleMarkdown(report: ArticleReport): string {
  const cells = Object.entries(report.fields).map(([field, tally]) => `| ${field} | ${tally.agree}/${tally.checked} | ${tally.checked ? ((100 * tally.agree) / tally.checked).toFixed(1) : '–'} % | ${ARTICLE_GOALS[field as keyof typeof ARTICLE_GOALS] * 100} % |`);
  return [`Article reader: ${report.pages} pages, ${report.crashes.length} crashes, slowest ${report.slowest_ms.toFixed(0)} ms.`, '', '| field | agree/checked | agree | goal |', '| --- | --- | --- | --- |', ...cells].join('\n');
}
