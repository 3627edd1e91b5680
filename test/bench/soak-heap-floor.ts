/**
 * `npx tsx test/bench/soak-heap-floor.ts <conversation.json>`: the floor beside the soak's heap
 * per added turn. A bare page in the same Chromium holds a stored conversation's turns (those the
 * soak asked, not its seeded copies) in four ways, and the JS heap after GC is read before and
 * after each (KB per turn):
 *   - `json`: each turn as its stored JSON, one plain string (the stored size, in the heap);
 *   - `parsed`: each turn parsed on its own, as the renderer receives it (one copy of every string);
 *   - `shared`: parsed, then its answer passed through TurnContent (the renderer's store now);
 *   - `parsed, no repeats` and `shared, no repeats`: the same two with each signal's own strings
 *     (id, title, URL, slug, snippet, body) made the turn's (`#k` appended), as if no answer cited a
 *     signal another answer cited; source names, kinds, entities and dates stay as they were:
 *     what sharing saves when the soak's six cycled questions do not cite the same signals again.
 * Copy the conversation file out of a soak's data directory while it runs (conversations/*.json).
 */
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import type { ConversationTurn } from '../../src/shared/conversation';

const file = process.argv[2];
if (!file) throw new Error('usage: soak-heap-floor.ts <conversation.json>');
const stored = JSON.parse(await readFile(file, 'utf8')) as { conversation: { turns: ConversationTurn[] } };
const turns = stored.conversation.turns.filter((turn) => !turn.id.includes('_seed'));
/** The turn as if its signals were cited by no other answer: each signal's own strings made the turn's. */
const unique = (turn: ConversationTurn, k: number): ConversationTurn => {
  const own = (value: string | undefined): string | undefined => (value === undefined ? value : `${value}#${k}`);
  const citations = turn.answer.citations.map((c) => ({ ...c, id: own(c.id)!, title: own(c.title), url: c.url === null ? null : own(c.url), slug: own(c.slug), snippet: own(c.snippet), ...(c.detail ? { detail: { ...c.detail, body: own(c.detail.body)! } } : {}) }));
  const support = turn.answer.support?.map((entry) => ({ ...entry, citation: own(entry.citation)! }));
  return { ...turn, answer: { ...turn.answer, citations, ...(support ? { support } : {}) } };
};
const bundle = await build({ entryPoints: ['src/renderer/src/store/turn-content.ts'], bundle: true, write: false, format: 'iife', globalName: 'TurnContentModule' });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--js-flags=--expose-gc'] });
try {
  const page = await browser.newPage();
  await page.goto('about:blank');
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  const cdp = await page.context().newCDPSession(page);
  const heap = async (): Promise<number> => {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    return ((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
  };
  const cases: Array<[string, string[], string]> = [
    ['json', turns.map((turn) => JSON.stringify(turn)), 'window.held = jsons'],
    ['parsed', turns.map((turn) => JSON.stringify(turn)), 'window.held = jsons.map((json) => JSON.parse(json))'],
    ['shared', turns.map((turn) => JSON.stringify(turn)), 'const content = new TurnContentModule.TurnContent(); window.held = jsons.map((json) => { const turn = JSON.parse(json); content.answer(turn.answer); return turn; }); window.heldContent = content'],
    ['parsed, no repeats', turns.map((turn, k) => JSON.stringify(unique(turn, k))), 'window.held = jsons.map((json) => JSON.parse(json))'],
    ['shared, no repeats', turns.map((turn, k) => JSON.stringify(unique(turn, k))), 'const content = new TurnContentModule.TurnContent(); window.held = jsons.map((json) => { const turn = JSON.parse(json); content.answer(turn.answer); return turn; }); window.heldContent = content'],
  ];
  const storedKb = turns.reduce((sum, turn) => sum + JSON.stringify(turn).length, 0) / 1024 / turns.length;
  console.log(`${turns.length} turns, stored ${storedKb.toFixed(2)} KB per turn (JSON)`);
  for (const [name, jsons, hold] of cases) {
    const before = await heap();
    // The JSON texts arrive in the page as the bridge's messages do; only what `hold` keeps stays.
    await page.evaluate(`((jsons) => { ${hold}; })(${JSON.stringify(jsons)})`);
    const after = await heap();
    console.log(`  ${name}: ${((after - before) / 1024 / turns.length).toFixed(2)} KB per turn`);
    await page.evaluate(() => void Object.assign(window, { held: null, heldContent: null }));
  }
} finally {
  await browser.close();
}
