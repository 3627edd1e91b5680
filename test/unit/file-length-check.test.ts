/**
 * The lint step's file-length check (scripts/check-file-length.mjs): a source file over 450
 * lines fails it unless its first five lines say why; this checkout's own src passes it.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = 'scripts/check-file-length.mjs';
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function checkTree(files: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const root = await mkdtemp(join(tmpdir(), 'clarity-length-'));
  dirs.push(root);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(root, 'src', name, '..'), { recursive: true });
    await writeFile(join(root, 'src', name), text);
  }
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, join(root, 'src')]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const lines = (count: number, head = '// A module.'): string => [head, ...Array.from({ length: count - 1 }, (_, i) => `export const v${i} = ${i};`)].join('\n') + '\n';

describe('check-file-length', () => {
  it('fails on a file over 450 lines with no reason, naming it and its length', async () => {
    const result = await checkTree({ 'service/long.ts': lines(451), 'service/short.ts': lines(450) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('service/long.ts (451 lines)');
    expect(result.stderr).not.toContain('short.ts');
  });

  it('passes a long file whose first five lines say why', async () => {
    const result = await checkTree({ 'renderer/table.tsx': lines(600, '// Over 450 lines on purpose: one state machine that reads best whole.') });
    expect(result.code).toBe(0);
  });

  it('does not take the words alone, or a reason below line five, as a reason', async () => {
    const bare = await checkTree({ 'a.ts': lines(500, '// over 450 lines') });
    expect(bare.code).toBe(1);
    const late = await checkTree({ 'b.ts': ['// b', '', '', '', '', '// Over 450 lines on purpose: said too late to count.', ...lines(500).split('\n')].join('\n') });
    expect(late.code).toBe(1);
  });

  it("passes this checkout's src (files still being split elsewhere are listed as pending)", async () => {
    const { stdout } = await run(process.execPath, [SCRIPT]);
    expect(stdout).toMatch(/every file in src is 450 lines or fewer, or says why/);
  });
});
