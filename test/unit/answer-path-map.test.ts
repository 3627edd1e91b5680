/**
 * docs/architecture.md's one-page map of the answer path stays true: every file it names exists,
 * and each table row's file defines the function or class named beside it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const doc = readFileSync('docs/architecture.md', 'utf8');
const start = doc.indexOf('## The answer path, one page');
const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
const rows = section
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| Step') && !line.startsWith('| ---'))
  .map((line) => line.split('|').map((cell) => cell.trim()));
const unquote = (cell: string): string => /^`([^`]+)`$/.exec(cell)?.[1] ?? '';

describe('the answer path map in docs/architecture.md', () => {
  it('is there, from the question to the view', () => {
    expect(start).toBeGreaterThan(0);
    expect(rows.map((row) => row[1])).toEqual(expect.arrayContaining(['question', 'entities', 'retrieval', 'composer', 'verifier', 'stream']));
  });

  it('names files that exist', () => {
    const paths = [...section.matchAll(/`((?:src|test)\/[^`]+\.tsx?)`/g)].map((match) => match[1]!);
    expect(paths.length).toBeGreaterThan(15);
    expect(paths.filter((path) => !existsSync(path))).toEqual([]);
  });

  it("names, on each row, a function or class that row's file defines", () => {
    const missing = rows.filter((row) => {
      const file = unquote(row[2]!);
      const name = unquote(row[3]!);
      if (!file || !name || !existsSync(file)) return true;
      return !new RegExp(`(?:function\\*?|class|const)\\s+${name}\\b`).test(readFileSync(file, 'utf8'));
    });
    expect(missing.map((row) => `${row[2]} ${row[3]}`)).toEqual([]);
  });
});
