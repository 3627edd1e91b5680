/**
 * src/main/services/ is grouped by capability (issue 29, item 8): every file sits in its
 * capability's folder, and the layering rules in eslint.config.js name exactly those folders.
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

describe('src/main/services', () => {
  it('holds one folder per capability, no loose files, and the lint rules know every folder', async () => {
    const entries = await readdir('src/main/services', { withFileTypes: true });
    expect(entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name)).toEqual([]);
    const folders = entries.map((entry) => entry.name).sort();
    const config = await readFile('eslint.config.js', 'utf8');
    const listed = /const mainServiceFolders = \[([^\]]*)\]/.exec(config)?.[1]?.match(/'[^']+'/g)?.map((name) => name.slice(1, -1)).sort();
    expect(listed).toEqual(folders);
  });
});
