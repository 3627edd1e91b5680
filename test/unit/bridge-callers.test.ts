/**
 * No dead bridge API (issue 29, item 5): every method of the contract is called from the
 * renderer, and every push event is listened to there. A method or event main offers that no
 * screen uses is removed, or built with its screen (docs/decisions/0012-no-crash-upload-or-update-restart-prompt.md).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BridgeMethods, PUSH_EVENT_NAMES } from '../../src/shared/bridge-contract';

async function rendererSource(): Promise<string> {
  const dir = join(process.cwd(), 'src/renderer');
  const files = (await readdir(dir, { recursive: true })).filter((file) => /\.tsx?$/.test(file));
  return (await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')))).join('\n');
}

describe('the bridge contract has no member without a caller', () => {
  it('every method is invoked and every push event is listened to by the renderer', async () => {
    const source = await rendererSource();
    const unused = [...Object.keys(BridgeMethods), ...PUSH_EVENT_NAMES].filter((name) => !source.includes(`'${name}'`));
    expect(unused).toEqual([]);
  });
});
