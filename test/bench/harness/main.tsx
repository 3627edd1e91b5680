/**
 * Renderer benchmark harness: the app's own streaming markdown against two baselines rendering
 * the identical stream — react-markdown re-rendering the whole answer per update (what popular
 * chat clients do) and streamdown. Driven by test/bench/renderer-bench.ts through `window.bench`.
 */
import { useState, useSyncExternalStore, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { flushSync } from 'react-dom';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { Streamdown } from 'streamdown';
import { VirtualList } from '../../../src/renderer/src/app/VirtualList';
import { MarkdownBlocks, useStreamingMarkdown } from '../../../src/renderer/src/features/chat/StreamingMarkdown';
import { IncrementalMarkdown } from '../../../src/renderer/src/features/chat/markdown';
import { BlockDom } from '../../../src/renderer/src/features/chat/block-dom';
import '../../../src/renderer/src/styles.css';

type RendererName = 'clarity' | 'react-markdown' | 'streamdown';

function Answer({ renderer, text, streaming }: { renderer: RendererName; text: string; streaming: boolean }): ReactElement {
  if (renderer === 'clarity') return <ClarityAnswer text={text} streaming={streaming} />;
  if (renderer === 'react-markdown') return <div className="answer-body"><ReactMarkdown remarkPlugins={[remarkGfm]}>{text}</ReactMarkdown></div>;
  return <div className="answer-body"><Streamdown>{text}</Streamdown></div>;
}

function ClarityAnswer({ text, streaming }: { text: string; streaming: boolean }) {
  const { frozen, tail } = useStreamingMarkdown(text, streaming);
  return (
    <div className="answer-body">
      <MarkdownBlocks frozen={frozen} tail={tail} />
    </div>
  );
}

/**
 * The streaming answer's text, read by its row alone (issue 50, round 6): as in the app, where each
 * row reads its own turn from the store (ChatView's TurnRow) and the list's items are the turns'
 * keys, a streamed update renders the growing answer's row, not the list and its virtualiser.
 */
const live = { text: '', listeners: new Set<() => void>() };
const subscribeLive = (listener: () => void): (() => void) => {
  live.listeners.add(listener);
  return () => live.listeners.delete(listener);
};
const setText = (text: string): void => {
  live.text = text;
  for (const listener of live.listeners) listener();
};
let setHistory: (history: string[]) => void = () => undefined;
let mountedHistory: string[] = [];

type Item = { key: string; text: string | null };
/** The streaming answer's item: always the same object (its text is read from `live`). */
const LIVE_ITEM: Item = { key: 'live', text: null };
/**
 * The history's items: an answer's item stays the same object while the answer does, as the app's
 * store keeps every other turn's object when a turn is added (chat-slice: `[...state.turns, turn]`),
 * so an append renders the new row alone, not every row in view again (the list's rows are memoised on
 * their item). Until round 6 the harness made a new object for every answer on every update.
 */
let historyItems: Item[] = [];
let itemsOf: { history: readonly string[]; items: Item[] } = { history: [], items: [LIVE_ITEM] };
function listItems(history: readonly string[]): Item[] {
  if (itemsOf.history === history) return itemsOf.items;
  historyItems = history.map((text, i) => (historyItems[i]?.text === text ? historyItems[i]! : { key: `h${i}`, text }));
  itemsOf = { history, items: [...historyItems, LIVE_ITEM] };
  return itemsOf.items;
}
const keyOfItem = (item: Item): string => item.key;

function LiveAnswer({ renderer }: { renderer: RendererName }) {
  const text = useSyncExternalStore(subscribeLive, () => live.text);
  return <Answer renderer={renderer} text={text} streaming />;
}

function Page({ renderer }: { renderer: RendererName }) {
  const [history, setH] = useState<string[]>([]);
  setHistory = setH;
  // The app's own list (virtualised), holding the history and the streaming answer last.
  return (
    <div style={{ height: '100vh', display: 'flex', flexDirection: 'column' }}>
      <VirtualList
        className="messages"
        items={listItems(history)}
        keyOf={keyOfItem}
        estimateHeight={700}
        render={(item) => <div className="answer">{item.text === null ? <LiveAnswer renderer={renderer} /> : <Answer renderer={renderer} text={item.text} streaming={false} />}</div>}
      />
    </div>
  );
}

let root: Root | null = null;
const stats = (values: number[]): { median: number; p95: number; n: number } => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
};
const nextFrame = (): Promise<number> => new Promise((resolve) => requestAnimationFrame(resolve));

function mount(renderer: RendererName): void {
  root?.unmount();
  live.text = '';
  root = createRoot(document.getElementById('root')!);
  flushSync(() => root!.render(<Page renderer={renderer} />));
}

/** The stream: the source text cut into deltas of a few words. */
function deltas(source: string, until: number): string[] {
  const parts = source.slice(0, until).match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += 3) out.push(parts.slice(i, i + 3).join(''));
  return out;
}

const bench = {
  /** Cost of one update (render + commit + layout) around given answer sizes. */
  renderCost(renderer: RendererName, source: string, sizes: number[]): Record<string, { median: number; p95: number; n: number; scriptMedian: number; scriptP95: number }> {
    mount(renderer);
    const body = document.getElementById('root')!;
    const costs = new Map<number, number[]>(sizes.map((size) => [size, []]));
    // Script time: React's render and commit (layout effects included, so a layout they force counts too).
    const scripts = new Map<number, number[]>(sizes.map((size) => [size, []]));
    let text = '';
    for (const delta of deltas(source, Math.max(...sizes) * 1.1)) {
      text += delta;
      // Updates are rendered from 2 KB before each measured window (the renderers warm up on
      // the same stream); the text before that arrives in one update, unmeasured, which keeps
      // react-markdown's run at 40 KB to minutes instead of a quarter of an hour.
      if (!sizes.some((size) => text.length >= size * 0.9 - 2_000 && text.length <= size * 1.1)) continue;
      const started = performance.now();
      flushSync(() => setText(text));
      const script = performance.now() - started;
      void body.offsetHeight; // include style and layout
      const cost = performance.now() - started;
      for (const size of sizes)
        if (text.length >= size * 0.9 && text.length <= size * 1.1) {
          costs.get(size)!.push(cost);
          scripts.get(size)!.push(script);
        }
    }
    return Object.fromEntries(
      sizes.map((size) => {
        const script = stats(scripts.get(size)!);
        return [String(size), { ...stats(costs.get(size)!), scriptMedian: script.median, scriptP95: script.p95 }];
      }),
    );
  },

  /** Frames while streaming `rate` deltas per second into a conversation of `messages` answers. */
  async longFrames(renderer: RendererName, source: string, history: string[], rate: number, durationMs: number, perDelta = false): Promise<{ frames: number; overBudgetShare: number; missedVsyncShare: number; longAnimationFrames: number; longestAnimationFrameMs: number; blockingMs: number; longestFrameMs: number }> {
    mount(renderer);
    flushSync(() => setHistory(history));
    // Let the history's first layout and paint finish before measuring the stream.
    await nextFrame();
    await nextFrame();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await nextFrame();
    // Long Animation Frames (LoAF) report every frame whose work took 50 ms or more, with its
    // blocking time; an empty list means none did (not "0 ms").
    const longFrames: number[] = [];
    let blockingMs = 0;
    const observer = new PerformanceObserver((list) =>
      list.getEntries().forEach((entry) => {
        longFrames.push(entry.duration);
        blockingMs += (entry as PerformanceEntry & { blockingDuration?: number }).blockingDuration ?? 0;
      }),
    );
    observer.observe({ type: 'long-animation-frame', buffered: false });
    const parts = deltas(source, source.length);
    let text = '';
    let i = 0;
    let pending = '';
    let scheduled = false;
    // Every renderer gets the app's batching: deltas arriving within a frame are applied once,
    // in that frame (perDelta: the labelled extra, one React update per delta).
    const timer = setInterval(() => {
      const delta = parts[i++ % parts.length]!;
      if (perDelta) {
        text += delta;
        setText(text);
        return;
      }
      pending += delta;
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(() => {
          scheduled = false;
          text += pending;
          pending = '';
          setText(text);
        });
      }
    }, 1000 / rate);
    const frameTimes: number[] = [];
    const started = performance.now();
    let last = await nextFrame();
    while (performance.now() - started < durationMs) {
      const now = await nextFrame();
      frameTimes.push(now - last);
      last = now;
    }
    clearInterval(timer);
    observer.disconnect();
    return {
      frames: frameTimes.length,
      overBudgetShare: frameTimes.filter((t) => t > 16.7).length / Math.max(1, frameTimes.length),
      // A frame that missed a vsync: well over one 16.7 ms interval (timer jitter excluded).
      missedVsyncShare: frameTimes.filter((t) => t > 25).length / Math.max(1, frameTimes.length),
      longAnimationFrames: longFrames.length,
      longestAnimationFrameMs: Math.max(0, ...longFrames),
      blockingMs,
      longestFrameMs: Math.max(0, ...frameTimes),
    };
  },

  /**
   * Where an update's script time goes, without React (delta-phases.ts): per update around
   * `size`, the renderer's update (lex, render, sanitise) and the view's morph, timed apart, and
   * how many DOMPurify calls the update made and whether it took the plain-text path. The same stream and window as renderCost.
   */
  deltaPhases(source: string, size: number, profile = false): { update: number[]; show: number[]; calls: number[]; chars: number[]; lexed: number[]; plain: number[] } {
    root?.unmount();
    root = null;
    const host = document.getElementById('root')!;
    host.replaceChildren();
    const answer = document.createElement('div');
    answer.className = 'answer-body';
    host.append(answer);
    // (delta-phases --off: one of the renderer's options off, to compare in one build.)
    const off = (window as unknown as { rendererOff?: string }).rendererOff;
    const markdown = off ? new IncrementalMarkdown({ [off]: false }) : new IncrementalMarkdown();
    const view = new BlockDom(answer);
    const out = { update: [] as number[], show: [] as number[], calls: [] as number[], chars: [] as number[], lexed: [] as number[], plain: [] as number[] };
    // (Counters a base checkout may not have read as 0.)
    const counters = markdown as unknown as { sanitizeCalls?: number; sanitizedChars: number; plainAppends?: number };
    let text = '';
    let profiling = false;
    for (const delta of deltas(source, size * 1.1)) {
      text += delta;
      if (text.length < size * 0.9 - 2_000) continue;
      // With a DevTools client listening (delta-phases --profile): the measured updates alone.
      if (profile && !profiling && text.length >= size * 0.9) {
        profiling = true;
        console.profile('deltas');
      }
      const calls = counters.sanitizeCalls ?? 0;
      const chars = counters.sanitizedChars;
      const lexed = markdown.lexedChars;
      const plain = counters.plainAppends ?? 0;
      const started = performance.now();
      const { frozen, tail } = markdown.update(text, true);
      const updated = performance.now();
      view.show(frozen, tail);
      const shown = performance.now();
      void host.offsetHeight;
      if (text.length < size * 0.9) continue;
      out.update.push(updated - started);
      out.show.push(shown - updated);
      out.calls.push((counters.sanitizeCalls ?? 0) - calls);
      out.chars.push(counters.sanitizedChars - chars);
      out.lexed.push(markdown.lexedChars - lexed);
      out.plain.push((counters.plainAppends ?? 0) - plain);
    }
    if (profiling) console.profileEnd('deltas');
    return out;
  },

  /** Mounts a history of answers (for heap and open-time figures); returns the time to paint. */
  async mountHistory(renderer: RendererName, history: string[]): Promise<number> {
    mount(renderer);
    const started = performance.now();
    mountedHistory = history;
    flushSync(() => setHistory(history));
    await nextFrame();
    return performance.now() - started;
  },

  /**
   * Appends one answer to the mounted history; returns the work it costs (render, commit, style
   * and layout, as for the render cost), measured from a frame's start so the wait for the next
   * vsync (up to 16.7 ms, whatever the work) is not counted.
   */
  async append(message: string): Promise<{ total: number; script: number }> {
    await nextFrame();
    const started = performance.now();
    mountedHistory = [...mountedHistory, message];
    flushSync(() => setHistory(mountedHistory));
    const script = performance.now() - started;
    void document.body.offsetHeight;
    return { total: performance.now() - started, script };
  },
};

(window as unknown as { bench: typeof bench }).bench = bench;
document.title = 'ready';
