/** Every design reference in the code points into this repository, at a section that exists. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (/\.(ts|tsx|mjs|md)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The section numbers a decisions page has: `## n.` headings, or `n. **…**` items. */
function sectionsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^(?:## )?(\d+)\. /gm)].map((m) => m[1]!));
}

describe('design references', () => {
  it('cite docs/decisions pages and sections that exist, never notes a clone does not have', async () => {
    const files = (await Promise.all(['src', 'test', 'scripts', 'docs'].map(filesUnder))).flat();
    const pages = new Map<string, Set<string>>();
    const missing: string[] = [];
    let references = 0;
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      // Spelled in two pieces so this file does not match itself.
      const outside = text.match(new RegExp(`\\b(DESIGN|STYLE) ${'§'}\\d`));
      if (outside) missing.push(`${file}: ${outside[0]} points outside the repository`);
      for (const match of text.matchAll(/docs\/decisions\/([a-z0-9-]+\.md) §(\d+)/g)) {
        references += 1;
        const page = match[1]!;
        if (!pages.has(page)) pages.set(page, sectionsOf(await readFile(join('docs/decisions', page), 'utf8').catch(() => '')));
        if (!pages.get(page)!.has(match[2]!)) missing.push(`${file}: ${match[0]} has no such section`);
      }
    }
    expect(missing).toEqual([]);
    expect(references).toBeGreaterThan(40);
  });
});
