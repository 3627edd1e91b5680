/**
 * `npm run bench:soak` (not in CI): an hour of use of the real app through the browser host.
 * Length: CLARITY_SOAK_MINUTES (default 60 here; `npm run bench` runs a 5-minute one, and the
 * same variable shortens or lengthens that). Every CLARITY_SOAK_ASK_EVERY_S seconds (default 10)
 * one answer is asked in the same conversation; every third answer the views are switched
 * (Discover, Library, back to Ask), every fifth the answer is saved to the library and the
 * library searched. Reported:
 *   - JS heap (after forced GC) and DOM counters (CDP Memory.getDOMCounters) over time, growth
 *     per hour after warm-up (the first fifth of the run) from a least-squares line; goal ≤ 5 %/h;
 *   - detached DOM trees at the end, after GC: JS-held nodes (Runtime.queryObjects on
 *     Node.prototype) of the page's document whose root is not a document or fragment; goal
 *     none; those of other documents (a library's inert one) are reported apart;
 *   - scroll frame times through the 1,000-turn conversation at the end, against the floor
 *     page scrolling plain text the same way in the same browser; goal ≤ 5 % of frames over
 *     1.5 × the floor's median frame time;
 *   - keystroke → paint p95 into the Composer at the end vs at the start; goal ≤ 1.1 ×. Both
 *     are taken 10 s after the last thing the soak did (the page's load; the last answer), 200
 *     keys each; the end is also taken at once after the last answer (`endP95`, reported apart).
 * Reaching 1,000 turns: the conversation is pre-seeded before the soak host starts. A first host
 * answers a few distinct questions at pace 0 through the app (a real conversation file, as main
 * writes it); its turns are then repeated, with new ids, up to 1,000 minus the answers the soak
 * will ask, so the conversation reaches 1,000 turns at the end of the run. Each repeat is made an
 * answer of its own (its question and the signals it cites: `distinctCopy`), so the start heap is
 * that of a real conversation, not of six answers sharing what they repeat.
 * The heap grows with that conversation (each answer's text, citations and support are held), so
 * beside the growth per hour the soak reports the heap per added turn and the stored conversation
 * file's bytes per added turn. CLARITY_SOAK_CONVERSATION=fixed tells a leak from the data: the
 * conversation is seeded to 1,000 turns and stays so; each answer is asked in a new conversation,
 * deleted after it, and the 1,000-turn conversation is opened again (its turns loaded again) before
 * the views are switched and the sample taken: what the app holds is then the same each cycle.
 * The heap's floor (`heapFloor`): a bare page (the floor page, in a browser context of its own so
 * that it is a renderer process and a V8 heap of its own) in the same Chromium, at the same
 * cadence, sampled by the same `sample` (forced GC, heap used, DOM counters) at the same moments.
 * It is driven more lightly than the app page: per answer, two `fill`s of its <textarea> (the
 * question typed, as the Composer is filled, then cleared) and one `evaluate` that hands it the
 * answer's body text, appended to a list kept to the answers the app's window holds
 * (HEAP_FLOOR_HELD; it starts full with the seeded conversation's last answers, as the app's
 * window does). The app page also gets clicks, waits that poll each frame while it streams, and
 * real input events that fill Chromium's interaction buffers. So the floor's growth is a lower
 * bound on what Chromium and the harness add to any page, and the difference an upper bound on
 * what the app itself adds. CLARITY_SOAK_FLOOR=0 leaves it out (to measure what it costs the
 * other figures).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import type { ConversationTurn } from '../../src/shared/conversation';
import { detachedRetainers, takeSnapshot, type HeapSnapshot } from './detached-retainers';
import { heapGrowth, type HeapGrowthGroup } from './heap-growth';
import { summariseMainThread, traced } from './cdp-trace';
import { cpuProfileTopSelf } from './trace-self-time';
import { CHROMIUM_ARGS, floorRenderer, openFloor, startHost, stopHost, waitForAnswerDone, waitForReady } from './app-bench';

export interface SoakSample {
  minute: number;
  turns: number;
  heapMb: number;
  domNodes: number;
  documents: number;
  listeners: number;
}

/** The heap's growth beside its floor (see the header and `heapFloorOf`). */
export interface SoakHeapFloor {
  /**
   * Least-squares slope after warm-up in KB per hour: the app's page (`value`), the bare page
   * (`floor`) and `difference` (value − floor: what the app adds beyond what any page in this
   * harness and this Chromium gains).
   */
  kbPerHour: { value: number; floor: number; difference: number };
  /**
   * The same slopes as % per hour of each page's own post-warm-up base (the app's is
   * `heapGrowthPctPerHour`), and `difference` as % of the app's base. The floor's own % is of a
   * base of about 1 MB, so it reads large for a few KB; it is shown so nobody compares it with
   * the app's % as if the bases were alike. KB/h is the unit the two pages share.
   */
  pctPerHour: { value: number; floor: number; difference: number };
  /** Each page's post-warm-up base (MB) that the % figures divide by. */
  baseMb: { value: number; floor: number };
  samples: SoakSample[];
}

export interface SoakResult {
  minutes: number;
  askEveryS: number;
  seededTurns: number;
  asked: number;
  /** Answers that ended otherwise than done, with the error the app showed (none expected). */
  answersNotDone: string[];
  turnsAtEnd: number;
  samples: SoakSample[];
  /** Least-squares growth after warm-up, as a share of the post-warm-up start, per hour. */
  heapGrowthPctPerHour: number;
  domNodeGrowthPctPerHour: number;
  /** 'growing': one conversation grows to 1,000 turns; 'fixed': it stays at 1,000 (see the header). */
  conversation: 'growing' | 'fixed';
  /** Least-squares slope of the heap against the turns held, after warm-up (growing only). */
  heapKbPerAddedTurn: number | null;
  /** The conversation file's growth per asked turn: the answers' own data as main stores it. */
  storedKbPerAddedTurn: number | null;
  /** CLARITY_SOAK_HEAP_DIFF=1: what the heap gained from the end of warm-up to the end (heap-growth.ts). */
  heapGrowthGroups?: HeapGrowthGroup[];
  /** The heap's floor in the same run (absent with CLARITY_SOAK_FLOOR=0). */
  heapFloor?: SoakHeapFloor;
  /**
   * Long Animation Frame entries in Chromium's own buffer at the end (read once with a buffered
   * observer): Chromium keeps the page's long frames, up to 200 of them, whether or not anything
   * observes them; the harness keeps none. They showed in round 9's heap diff (≈ 35 KB).
   */
  longAnimationFramesBuffered?: { value: number; floor?: number };
  /** Detached trees at the end; `examples` names up to 12 of them (tag.class[test id] "text"). */
  detached: DetachedTrees;
  scroll: { frames: number; medianMs: number; floorMedianMs: number; overShare: number };
  keystroke: {
    startP95: number;
    endP95: number;
    ratio: number;
    n: number;
    /** The same keys at once after the last answer (the end's figure is taken 10 s later, as the start's is after the load). */
    endAtOnceP95?: number;
    atOnceRatio?: number;
  };
}

const QUESTIONS = ['How fast is quick commerce growing in Bengaluru?', 'Tanishq jewellery in Kerala', 'Zudio store openings in Pune', 'Apollo Pharmacy hiring in Hyderabad', 'DMart revenue growth in Mumbai', 'Nykaa beauty prices in Delhi'];
const TARGET_TURNS = 1_000;
const round = (n: number): number => Math.round(n * 100) / 100;
const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0;

/** Asks and waits for the answer to end; its end status ('done', or 'failed' with the error shown, …). */
async function ask(page: Page, question: string): Promise<string> {
  await page.getByTestId('composer-input').fill(question);
  await page.getByTestId('send').click();
  // The conversation may already hold finished answers: wait for the new one to start, then end.
  // A locator's wait, not waitForSelector: that returns an element handle the driver keeps, which
  // held every asked answer's first element in memory and showed as a detached tree.
  await page.locator('[data-status="streaming"],[data-status="waiting"]').first().waitFor({ timeout: 5_000 }).catch(() => undefined);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="answer"]').length > 0 && !document.querySelector('[data-status="streaming"],[data-status="waiting"]'), undefined, { timeout: 180_000 }).catch(async (error: unknown) => {
    // What the analyst would have seen, kept for whoever reads the failure.
    const shot = join(tmpdir(), `clarity-soak-stuck-${Date.now()}.png`);
    await page.screenshot({ path: shot }).catch(() => undefined);
    throw new Error(`soak: the answer to "${question}" did not end within 180 s (screenshot: ${shot})`, { cause: error });
  });
  const last = page.getByTestId('answer').last();
  const status = (await last.getAttribute('data-status')) ?? '?';
  if (status === 'done') return status;
  const error = await last.getByTestId('answer-error').textContent({ timeout: 1_000 }).catch(() => '');
  return `${status}${error ? `: ${error.trim().slice(0, 160)}` : ''}`;
}

/**
 * Copy `copy` of a real turn as an answer of its own: its question, and every signal it cites
 * (id, in the text's markers too, title, URL, snippet, body) made the copy's, so no two seeded
 * answers cite the same signal. Plain copies of six answers shared nearly everything once the
 * store kept one copy of what answers repeat (round 8: the seeded heap fell from 19.5 to 10.2 MB),
 * which is not what a real 1,000-turn conversation holds; this is the floor's "no repeats" case.
 */
function distinctCopy(turn: ConversationTurn, copy: number): ConversationTurn {
  if (copy === 0) return turn;
  const tag = (copy % 0x10000).toString(16).padStart(4, '0');
  // Still a signal id (sig_ and 16 hex digits): the answer's chips and citation list find it.
  const id = (signal: string): string => (/^sig_[0-9a-f]{16}$/.test(signal) ? `${signal.slice(0, 16)}${tag}` : `${signal}-${tag}`);
  const own = (value: string | undefined): string | undefined => (value === undefined ? value : `${value} (${copy})`);
  const answer = turn.answer;
  const citations = answer.citations.map((c) => ({ ...c, id: id(c.id), title: own(c.title), url: c.url === undefined ? c.url : `${c.url}#${copy}`, snippet: own(c.snippet), ...(c.detail ? { detail: { ...c.detail, body: own(c.detail.body)! } } : {}) }));
  const text = answer.text.replace(/\[(sig_[0-9a-f]{16})\]/g, (_, signal: string) => `[${id(signal)}]`);
  const support = answer.support?.map((entry) => ({ ...entry, sentence: entry.sentence.replace(/\[(sig_[0-9a-f]{16})\]/g, (_, signal: string) => `[${id(signal)}]`), citation: id(entry.citation) }));
  return { ...turn, question: `${turn.question} (${copy})`, answer: { ...answer, text, citations, ...(support ? { support } : {}) } };
}

/** A real conversation from the app, its turns repeated up to `turns` (see the header). */
async function seedConversation(dataDir: string, renderer: string, turns: number): Promise<void> {
  // The first start on a new data directory generates the service's corpus; on a loaded machine
  // that can outlast the supervisor's start timeout. The corpus is cached by then, so a second
  // start on the same directory comes up: up to three attempts.
  for (let attempt = 1; ; attempt += 1) {
    const host = await startHost(['--pace-ms', '0', '--service-arg=--no-live'], { dataDir, renderer });
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(host.url);
      const ready = await waitForReady(page).then(
        () => true,
        (error: unknown) => {
          if (attempt >= 3) throw error;
          return false;
        },
      );
      if (!ready) continue;
      for (const question of QUESTIONS) await ask(page, question);
      await waitForAnswerDone(page);
      break;
    } finally {
      await browser.close();
      await stopHost(host);
    }
  }
  const file = await conversationFile(dataDir);
  const stored = JSON.parse(await readFile(file, 'utf8')) as { conversation: { turns: ConversationTurn[] } };
  const real = stored.conversation.turns;
  const start = Date.now() - turns * 60_000;
  stored.conversation.turns = Array.from({ length: turns }, (_, i) => ({
    ...distinctCopy(real[i % real.length]!, Math.floor(i / real.length)),
    id: `${real[i % real.length]!.id}_seed${i}`,
    askedAt: new Date(start + i * 60_000).toISOString(),
  }));
  await writeFile(file, JSON.stringify(stored));
}

async function sample(cdp: CDPSession, minute: number, turns: number): Promise<SoakSample> {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  const counters = (await cdp.send('Memory.getDOMCounters')) as { documents: number; nodes: number; jsEventListeners: number };
  // To the KB, not the 10 KB of `round`: the floor page gains a few tens of KB in a short run.
  return { minute: round(minute), turns, heapMb: Math.round(usedSize / 2 ** 10) / 2 ** 10, domNodes: counters.nodes, documents: counters.documents, listeners: counters.jsEventListeners };
}

/** The samples after warm-up: the later four fifths. */
const afterWarmUp = (samples: SoakSample[]): SoakSample[] => samples.slice(Math.floor(samples.length / 5));

/** The least-squares fit of `ys` against `xs` (at least two points): its slope (0 when the xs do not spread) and the means. */
function leastSquares(xs: number[], ys: number[]): { slope: number; spread: number; mx: number; my: number } {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  const spread = xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  const slope = xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i]! - my), 0) / Math.max(1e-9, spread);
  return { slope, spread, mx, my };
}

/** The least-squares line after warm-up against the minutes: its slope per hour and its value at their start. */
function lineAfterWarmUp(samples: SoakSample[], pick: (s: SoakSample) => number): { perHour: number; start: number } {
  const later = afterWarmUp(samples);
  if (later.length < 2) return { perHour: 0, start: later.length ? pick(later[0]!) : 0 };
  const xs = later.map((s) => s.minute);
  const { slope, mx, my } = leastSquares(xs, later.map(pick));
  return { perHour: slope * 60, start: my - slope * (mx - xs[0]!) };
}

/** Growth per hour after warm-up (least-squares slope over the later samples), as a % of the line's start. */
function growthPerHour(samples: SoakSample[], pick: (s: SoakSample) => number): number {
  const { perHour, start } = lineAfterWarmUp(samples, pick);
  return round((perHour / Math.max(1e-9, start)) * 100);
}

/**
 * The app's heap growth beside the bare page's, sampled at the same moments. Both in KB/h (the
 * unit two pages of unlike size share: what Chromium and the harness add is bytes, not a share
 * of the app's heap) and in %/h of each page's own base; the difference in KB/h, and as % of the
 * app's base, is the growth the app itself adds.
 */
function heapFloorOf(samples: SoakSample[], floorSamples: SoakSample[]): SoakHeapFloor {
  const app = lineAfterWarmUp(samples, (s) => s.heapMb * 1024);
  const floor = lineAfterWarmUp(floorSamples, (s) => s.heapMb * 1024);
  const pct = (kbPerHour: number, baseKb: number): number => round((kbPerHour / Math.max(1e-9, baseKb)) * 100);
  return {
    kbPerHour: { value: round(app.perHour), floor: round(floor.perHour), difference: round(app.perHour - floor.perHour) },
    pctPerHour: { value: pct(app.perHour, app.start), floor: pct(floor.perHour, floor.start), difference: pct(app.perHour - floor.perHour, app.start) },
    baseMb: { value: round(app.start / 1024), floor: round(floor.start / 1024) },
    samples: floorSamples,
  };
}

/**
 * Answers the bare page holds: about what the app's window holds (chat-slice.ts: the rendered
 * rows ± WINDOW_PAD of 20, ≈ 48 answers in the soak's viewport), so that neither page's data
 * grows once it is full and what is left of either slope is not the data.
 */
const HEAP_FLOOR_HELD = 48;

/** The bare page's part: hold an answer's text as the last of at most `keep` paragraphs. Plain JavaScript (see scrollFrames). */
const HEAP_FLOOR_SCRIPT = `(() => {
  const list = document.createElement('div');
  document.body.append(list);
  // Held in JS as well as in the DOM, as the app's store holds its answers' text.
  const held = [];
  window.__soakHold = (texts, keep) => {
    for (const text of texts) {
      const paragraph = document.createElement('p');
      paragraph.textContent = text;
      list.append(paragraph);
      held.push(text);
    }
    while (list.childElementCount > keep) list.firstElementChild.remove();
    held.splice(0, Math.max(0, held.length - keep));
  };
})()`;

/** The page's Long Animation Frame entries Chromium buffers (see `longAnimationFramesBuffered`). */
const LOAF_BUFFERED = `new Promise((resolve) => {
  const observer = new PerformanceObserver((list) => { observer.disconnect(); resolve(list.getEntries().length); });
  observer.observe({ type: 'long-animation-frame', buffered: true });
  setTimeout(() => { observer.disconnect(); resolve(0); }, 1000);
})`;

/** The last answer's body as the app shows it (what the bare page is handed): its text, without the card's controls. */
const LAST_ANSWER_TEXT = `(() => { const bodies = document.querySelectorAll('[data-testid="answer-body"]'); return bodies[bodies.length - 1]?.textContent ?? ''; })()`;
/** A stored answer's text as its body shows it, near enough: its citation markers left out (the seeded answers the bare page starts with). */
const shownText = (text: string): string => text.replace(/\[sig_[^\]]*\]/g, '');

/** Least-squares slope of the heap (KB) against the turns held, after warm-up. */
function heapPerTurnKb(samples: SoakSample[]): number | null {
  const later = afterWarmUp(samples);
  if (later.length < 2) return null;
  const { slope, spread } = leastSquares(later.map((s) => s.turns), later.map((s) => s.heapMb * 1024));
  return spread === 0 ? null : round(slope);
}

/**
 * CLARITY_SOAK_SNAPSHOT_DIR (with CLARITY_SOAK_HEAP_DIFF=1): the two heap snapshots are also written
 * there (`soak-<label>-<turns>.heapsnapshot`, DevTools' format) for heap-diff.ts or DevTools.
 */
async function keepSnapshot(heap: HeapSnapshot, label: string, turns: number): Promise<void> {
  const dir = process.env.CLARITY_SOAK_SNAPSHOT_DIR;
  if (!dir) return;
  const file = join(dir, `soak-${label}-${turns}.heapsnapshot`);
  await writeFile(file, JSON.stringify(heap));
  console.log(`  soak: heap snapshot at ${turns} turns: ${file}`);
}

async function conversationFile(dataDir: string): Promise<string> {
  const dir = join(dataDir, 'conversations');
  const [name] = (await readdir(dir)).filter((file) => file.endsWith('.json'));
  if (!name) throw new Error('soak: seeding wrote no conversation');
  return join(dir, name);
}

interface TreeCount {
  trees: number;
  nodes: number;
  /** Up to 12 of them (tag.class[test id] "text"). */
  examples: string[];
}
/**
 * The page's detached trees, and apart from them the trees of other documents the page's JS
 * holds (a library's own inert document, a DOMParser's): those were never in the page and
 * cannot be (DOMPurify, for one, keeps a `<form>` of its template document for its checks),
 * but they are listed so that one growing would still show.
 */
type DetachedTrees = TreeCount & { otherDocuments?: TreeCount };

/**
 * JS-held nodes, after GC, whose root is neither a document nor a fragment: detached trees. The
 * goal counts those of the page's own document; other documents' are reported beside them.
 */
async function detachedTrees(cdp: CDPSession): Promise<DetachedTrees> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { result: proto } = (await cdp.send('Runtime.evaluate', { expression: 'Node.prototype' })) as { result: { objectId: string } };
  const { objects } = (await cdp.send('Runtime.queryObjects', { prototypeObjectId: proto.objectId })) as { objects: { objectId: string } };
  const { result } = (await cdp.send('Runtime.callFunctionOn', {
    objectId: objects.objectId,
    functionDeclaration: `function () {
      const page = { roots: new Set(), nodes: 0 };
      const other = { roots: new Set(), nodes: 0 };
      for (const node of this) {
        // The prototypes themselves (Element.prototype…) are among the objects: their getters throw.
        let connected;
        try {
          connected = node.isConnected;
        } catch {
          continue;
        }
        if (connected) continue;
        // An attribute is never in a tree (isConnected is false, it is its own root): it belongs
        // to its element, detached only if that element is.
        let subject = node;
        if (node.nodeType === Node.ATTRIBUTE_NODE) {
          if (!node.ownerElement || node.ownerElement.isConnected) continue;
          subject = node.ownerElement;
        }
        const root = subject.getRootNode();
        if (root.nodeType === Node.DOCUMENT_NODE || root.nodeType === Node.DOCUMENT_FRAGMENT_NODE) continue;
        // Whose node: the page's document, or another one (never attachable to the page as is).
        const into = subject.ownerDocument === document ? page : other;
        into.nodes += 1;
        into.roots.add(root);
      }
      // What each tree is, so its holder can be found (tag, class, test id, a little text).
      const examples = (roots) => [...roots].slice(0, 12).map((root) => {
        const el = root.nodeType === Node.ELEMENT_NODE ? root : null;
        const name = el ? el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + (el.dataset?.testid ? '[' + el.dataset.testid + ']' : '') : root.nodeName;
        return name + ' ' + JSON.stringify((root.textContent || '').trim().slice(0, 50));
      });
      return { trees: page.roots.size, nodes: page.nodes, examples: examples(page.roots), otherDocuments: { trees: other.roots.size, nodes: other.nodes, examples: examples(other.roots) } };
    }`,
    returnByValue: true,
  })) as { result: { value?: DetachedTrees }; exceptionDetails?: { text: string } };
  await cdp.send('Runtime.releaseObject', { objectId: objects.objectId });
  if (!result.value) throw new Error('soak: counting detached DOM trees failed in the page');
  return result.value;
}

// Keystroke → next paint into the Composer (the app bench's probe, the Composer alone). Listens
// on the document: the Composer's element may be replaced as views switch.
const KEY_PROBE = `(() => {
  window.__soakKeys = [];
  document.addEventListener('keydown', (event) => {
    if (event.target?.dataset?.testid !== 'composer-input') return;
    const sent = event.timeStamp;
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { window.__soakKeys.push(performance.now() - sent); channel.port1.close(); };
      channel.port2.postMessage(null);
    });
  }, true);
})()`;

/**
 * CLARITY_SOAK_TRACE_KEYS=1: the page traced while `keys` runs (cdp-trace.ts), printed as every key's
 * time in the order typed, the main thread's self time per event and its longest tasks, and the JS
 * functions with the most self time: the start's keys and the end's told apart by what ran.
 */
async function traceKeys(cdp: CDPSession, label: string, keys: () => Promise<number[]>): Promise<number[]> {
  if (process.env.CLARITY_SOAK_TRACE_KEYS !== '1') return keys();
  const { result: times, events, profile } = await traced(cdp, keys);
  const { self, frames } = summariseMainThread(events);
  const dir = process.env.CLARITY_SOAK_TRACE_DIR;
  if (dir) await writeFile(join(dir, `keys-${label.replace(/\W+/g, '-')}.json`), JSON.stringify({ traceEvents: events }));
  console.log(`  keys ${label} (ms, as typed): ${times.map((t) => t.toFixed(0)).join(' ')}`);
  console.log(`    main thread, self ms: ${self.map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(', ')}`);
  console.log(`    longest tasks (ms): ${[...frames].sort((a, b) => b - a).slice(0, 10).map((f) => f.toFixed(1)).join(' ')}; tasks over 1 ms: ${frames.length}`);
  console.log(`    JS self ms: ${cpuProfileTopSelf(profile, 10).map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(', ')}`);
  return times;
}

/**
 * `bursts` runs of `count` keys pressed back to back (as the app bench types), half a second
 * apart: one long task (a GC, a message from main) held up a whole run of queued keys, and with
 * one run of 42 the p95 was that run's two worst keys; five runs weigh such a hold-up as what it is.
 */
async function keystrokes(page: Page, count = 40, bursts = 5): Promise<number[]> {
  const composer = page.getByTestId('composer-input');
  const keys: number[] = [];
  for (let burst = 0; burst < bursts; burst += 1) {
    await composer.fill('');
    await composer.focus();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.evaluate(() => void (window as unknown as { __soakKeys: number[] }).__soakKeys.splice(0));
    for (let key = 0; key < count; key += 1) await page.keyboard.press('a');
    await page.waitForFunction((n) => (window as unknown as { __soakKeys: number[] }).__soakKeys.length >= n, count, { timeout: 120_000 });
    keys.push(...(await page.evaluate(() => (window as unknown as { __soakKeys: number[] }).__soakKeys.splice(0))));
    await composer.fill('');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return keys;
}

/**
 * Scrolls the conversation's list from the top by `stepPx` a frame; the rAF intervals. Plain
 * JavaScript: the TypeScript runner would wrap named functions in helpers the page lacks.
 */
async function scrollFrames(page: Page, stepPx: number, frames: number): Promise<number[]> {
  return (await page.evaluate(`(async () => {
    const scroller = document.querySelector('[data-testid="messages"]');
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    scroller.scrollTop = 0;
    await frame();
    let last = await frame();
    const times = [];
    for (let i = 0; i < ${frames}; i += 1) {
      scroller.scrollTop += ${stepPx};
      const now = await frame();
      times.push(now - last);
      last = now;
    }
    return times;
  })()`)) as number[];
}

export async function benchSoak({
  minutes = Number(process.env.CLARITY_SOAK_MINUTES ?? 60),
  askEveryS = Number(process.env.CLARITY_SOAK_ASK_EVERY_S ?? 10),
  conversation = (process.env.CLARITY_SOAK_CONVERSATION ?? 'growing') as SoakResult['conversation'],
  build = true,
} = {}): Promise<SoakResult> {
  if (!(minutes > 0) || !(askEveryS > 0)) throw new Error('soak: CLARITY_SOAK_MINUTES and CLARITY_SOAK_ASK_EVERY_S must be positive numbers');
  if (conversation !== 'growing' && conversation !== 'fixed') throw new Error('soak: CLARITY_SOAK_CONVERSATION must be "growing" or "fixed"');
  const fixed = conversation === 'fixed';
  if (build) execFileSync('npx', ['--no-install', 'electron-vite', 'build'], { stdio: 'ignore' });
  const planned = Math.floor((minutes * 60) / askEveryS);
  const seededTurns = fixed ? TARGET_TURNS : Math.max(QUESTIONS.length, TARGET_TURNS - planned);
  const dataDir = await mkdtemp(join(tmpdir(), 'clarity-soak-'));
  const renderer = await floorRenderer();
  let keepDataDir = false;
  try {
    await seedConversation(dataDir, renderer.dir, seededTurns);
    const seededFile = await conversationFile(dataDir);
    const seededBytes = (await stat(seededFile)).size;
    const withFloor = process.env.CLARITY_SOAK_FLOOR !== '0';
    // The bare page starts as the app's window does: holding the conversation's last answers.
    const seededTexts = withFloor ? (JSON.parse(await readFile(seededFile, 'utf8')) as { conversation: { turns: ConversationTurn[] } }).conversation.turns.slice(-HEAP_FLOOR_HELD).map((turn) => shownText(turn.answer.text)) : [];
    const host = await startHost(['--pace-ms', '5', '--service-arg=--no-live'], { dataDir, renderer: renderer.dir });
    // A host that ends before the soak does is the soak's finding: say how it ended.
    host.child.on('exit', (code, signal) => console.error(`  soak: the browser host exited (code ${code}, signal ${signal})`));
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'] });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      await page.goto(host.url);
      await waitForReady(page);
      await page.getByTestId('question').first().waitFor();
      const cdp = await context.newCDPSession(page);
      await page.evaluate(KEY_PROBE);
      // The heap's floor: its own context (its own renderer process and V8 heap; `sample` reads a
      // process's heap and DOM counters, so a page sharing the app's process would read the app's),
      // given the app context's session cookie, as the launch token is good once.
      let floorContext: BrowserContext | null = null;
      let floorPage: Page | null = null;
      let floorCdp: CDPSession | null = null;
      if (withFloor) {
        floorContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
        await floorContext.addCookies(await context.cookies());
        floorPage = await openFloor(floorContext, host, true);
        await floorPage.waitForFunction(() => document.title === 'ready');
        await floorPage.evaluate(HEAP_FLOOR_SCRIPT);
        await floorPage.evaluate(([texts, keep]) => (window as unknown as { __soakHold(t: readonly string[], k: number): void }).__soakHold(texts, keep), [seededTexts, HEAP_FLOOR_HELD] as const);
        floorCdp = await floorContext.newCDPSession(floorPage);
      }
      const floorInput = floorPage?.locator('textarea');
      // Playwright's injected script loads on a page's first `fill`: here, before the first sample, as on the app page.
      await floorInput?.fill('');
      // Start and end alike: 10 s after the last thing done (here the page's load).
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const startKeys = await traceKeys(cdp, 'start', () => keystrokes(page));
      const samples: SoakSample[] = [await sample(cdp, 0, seededTurns)];
      const floorSamples: SoakSample[] = floorCdp ? [await sample(floorCdp, 0, seededTurns)] : [];
      const started = performance.now();
      const elapsedMin = (): number => (performance.now() - started) / 60_000;
      let asked = 0;
      let lastSampleMin = 0;
      console.log(`  soak: ${minutes} min, an answer every ${askEveryS} s, conversation seeded with ${seededTurns} turns (${conversation})`);
      const longConversation = page.getByTestId('conversation-item').first();
      const longConversationId = await longConversation.getAttribute('data-id');
      const notDone: string[] = [];
      const heapDiff = process.env.CLARITY_SOAK_HEAP_DIFF === '1';
      let warmHeap: HeapSnapshot | null = null;
      const held = (): number => (fixed ? seededTurns : seededTurns + asked);
      while (elapsedMin() < minutes) {
        const cycleStart = performance.now();
        if (fixed) await page.getByTestId('new-conversation').click();
        const question = `${QUESTIONS[asked % QUESTIONS.length]} (soak ${asked})`;
        const ended = await ask(page, question);
        asked += 1;
        if (floorPage && floorInput) {
          // The same answer handed to the bare page, its question typed as the Composer's is.
          const text = (await page.evaluate(LAST_ANSWER_TEXT)) as string;
          await floorInput.fill(question);
          await floorPage.evaluate(([texts, keep]) => (window as unknown as { __soakHold(t: readonly string[], k: number): void }).__soakHold(texts, keep), [[text], HEAP_FLOOR_HELD] as const);
          await floorInput.fill('');
        }
        if (ended !== 'done') {
          notDone.push(ended);
          console.log(`  soak: answer ${asked} ended ${ended}`);
        }
        if (asked % 5 === 0 && ended === 'done') await page.getByTestId('answer').last().getByTestId('save-answer').click();
        if (fixed) {
          // The answer's conversation goes; the 1,000-turn one is opened again, as an analyst returns to it.
          await page.locator('[data-testid="conversation-item"].active [data-testid="delete-conversation"]').click();
          await page.locator(`[data-testid="conversation-item"][data-id="${longConversationId}"]`).click();
          await page.locator(`[data-testid="conversation-item"].active[data-id="${longConversationId}"]`).waitFor();
          await page.getByTestId('question').first().waitFor();
        }
        if (asked % 5 === 0) {
          await page.getByTestId('nav-library').click();
          await page.getByTestId('library-search').fill(['Bengaluru', 'Tanishq', 'Zudio Pune', 'hiring'][asked % 4]!);
          await page.getByTestId('library-item').first().waitFor({ timeout: 10_000 }).catch(() => undefined);
          await page.getByTestId('library-search').fill('');
          await page.getByTestId('nav-chat').click();
        } else if (asked % 3 === 0) {
          for (const view of ['discover', 'library', 'chat']) await page.getByTestId(`nav-${view}`).click();
        }
        await page.getByTestId('composer-input').waitFor();
        if (elapsedMin() - lastSampleMin >= Math.min(1, minutes / 10)) {
          lastSampleMin = elapsedMin();
          samples.push(await sample(cdp, lastSampleMin, held()));
          if (floorCdp) floorSamples.push(await sample(floorCdp, lastSampleMin, held()));
          if (heapDiff && !warmHeap && lastSampleMin >= minutes / 5) {
            warmHeap = await takeSnapshot(cdp);
            await keepSnapshot(warmHeap, 'warm', held());
          }
          console.log(`  soak: ${JSON.stringify(samples.at(-1))}`);
        }
        const rest = askEveryS * 1000 - (performance.now() - cycleStart);
        if (rest > 0 && elapsedMin() < minutes) await new Promise((resolve) => setTimeout(resolve, rest));
      }
      const endMinute = elapsedMin();
      samples.push(await sample(cdp, endMinute, held()));
      if (floorCdp) floorSamples.push(await sample(floorCdp, endMinute, held()));
      const storedBytes = (await stat(seededFile)).size;
      const endHeap = warmHeap ? await takeSnapshot(cdp) : null;
      if (endHeap) await keepSnapshot(endHeap, 'end', held());
      const heapGrowthGroups = warmHeap && endHeap ? heapGrowth(warmHeap, endHeap) : undefined;
      // Counted after the end snapshot: reading the entries makes a JS object for each, which the heap diff would count.
      const longAnimationFramesBuffered = { value: (await page.evaluate(LOAF_BUFFERED)) as number, ...(floorPage ? { floor: (await floorPage.evaluate(LOAF_BUFFERED)) as number } : {}) };
      warmHeap = null;
      for (const group of heapGrowthGroups ?? []) console.log(`  heap gained: ${(group.bytes / 1024).toFixed(1)} KB in ${group.count} × ${group.kind}, e.g. held by ${group.heldBy}`);
      const endAtOnceKeys = await traceKeys(cdp, 'end, at once', () => keystrokes(page));
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const endKeys = await traceKeys(cdp, 'end', () => keystrokes(page));
      // Open and idle through the start's keys and the end's alike; closed before the scroll.
      await floorContext?.close();
      const detached = await detachedTrees(cdp);
      // CLARITY_SOAK_RETAINERS=1: who holds each detached tree (a heap snapshot's shortest retainer chains).
      if (process.env.CLARITY_SOAK_RETAINERS === '1' && detached.trees > 0) for (const line of await detachedRetainers(cdp)) console.log(`  detached, held by: ${line}`);
      // Scroll through the long conversation, then the floor page the same way in the same browser.
      const appFrames = await scrollFrames(page, 300, 240);
      const floor = await openFloor(context, host, true);
      await floor.waitForFunction(() => document.title === 'ready');
      const paragraph = QUESTIONS.join(' ').repeat(6);
      const floorFrames = (await floor.evaluate(([p, t, step, n]) => (window as unknown as { floor: { scrollFrames(p: number, t: string, s: number, n: number): Promise<number[]> } }).floor.scrollFrames(p, t, step, n), [2_000, paragraph, 300, 240] as const)) as number[];
      const floorMedian = percentile(floorFrames, 0.5);
      await context.close();
      const startP95 = percentile(startKeys, 0.95);
      const endP95 = percentile(endKeys, 0.95);
      const endAtOnceP95 = percentile(endAtOnceKeys, 0.95);
      return {
        minutes,
        askEveryS,
        seededTurns,
        asked,
        turnsAtEnd: held(),
        answersNotDone: notDone,
        samples,
        heapGrowthPctPerHour: growthPerHour(samples, (s) => s.heapMb),
        domNodeGrowthPctPerHour: growthPerHour(samples, (s) => s.domNodes),
        conversation,
        heapKbPerAddedTurn: fixed ? null : heapPerTurnKb(samples),
        storedKbPerAddedTurn: fixed || asked === 0 ? null : round((storedBytes - seededBytes) / 1024 / asked),
        ...(heapGrowthGroups ? { heapGrowthGroups } : {}),
        ...(withFloor ? { heapFloor: heapFloorOf(samples, floorSamples) } : {}),
        longAnimationFramesBuffered,
        detached,
        scroll: { frames: appFrames.length, medianMs: round(percentile(appFrames, 0.5)), floorMedianMs: round(floorMedian), overShare: round(appFrames.filter((t) => t > 1.5 * floorMedian).length / Math.max(1, appFrames.length)) },
        keystroke: { startP95: round(startP95), endP95: round(endP95), ratio: round(endP95 / Math.max(0.001, startP95)), n: endKeys.length, endAtOnceP95: round(endAtOnceP95), atOnceRatio: round(endAtOnceP95 / Math.max(0.001, startP95)) },
      };
    } finally {
      await browser.close();
      await stopHost(host);
    }
  } catch (error) {
    console.error(`  soak failed; its data directory (logs included) is kept: ${dataDir}`);
    keepDataDir = true;
    throw error;
  } finally {
    await renderer.remove();
    if (!keepDataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('soak-bench.ts')) {
  const soak = await benchSoak();
  console.log(JSON.stringify(soak, null, 2));
  await writeFile(soak.conversation === 'fixed' ? 'bench/results/soak-fixed-latest.json' : 'bench/results/soak-latest.json', `${JSON.stringify({ measured_at: new Date().toISOString(), soak }, null, 2)}\n`);
}
