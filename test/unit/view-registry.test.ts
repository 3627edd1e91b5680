/**
 * The view registry (src/renderer/src/app/view-registry.ts) is the only list of the app's views:
 * no other file of the renderer or the end-to-end tests lists them again, every view has its
 * parts, every "open a view" command and every link kind belongs to one view.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VIEW_REGISTRY, viewForCommand } from '../../src/renderer/src/app/view-registry';

const REGISTRY = 'src/renderer/src/app/view-registry.ts';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (/\.(ts|tsx)$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('the view registry', () => {
  it('is the only list of views: no other line names three or more of them', async () => {
    const ids = VIEW_REGISTRY.map((view) => view.id);
    const lists: string[] = [];
    for (const file of [...(await filesUnder('src/renderer/src')), ...(await filesUnder('test/e2e'))]) {
      if (file === REGISTRY) continue;
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        const named = ids.filter((id) => line.includes(`'${id}'`));
        if (named.length >= 3) lists.push(`${file}:${i + 1}: ${named.join(', ')}`);
      });
    }
    expect(lists).toEqual([]);
  });

  it('declares each view once, with a title, and maps commands and link kinds to one view each', () => {
    const ids = VIEW_REGISTRY.map((view) => view.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(VIEW_REGISTRY.every((view) => view.title.length > 0)).toBe(true);
    for (const command of ['open-ask', 'open-research', 'open-health', 'open-library', 'open-settings']) expect(viewForCommand(command)).not.toBeNull();
    expect(viewForCommand('new-conversation')).toBeNull();
    const kinds = VIEW_REGISTRY.flatMap((view) => [...view.links]);
    expect(kinds.sort()).toEqual(['ask', 'conversation', 'report', 'saved']);
  });
});
