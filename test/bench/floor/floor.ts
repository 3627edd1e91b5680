/**
 * Benchmark only: the floor page (issue 31). Served by the browser host from the same origin as
 * the app, it does the least any page must do for the app's client figures, with the app's own
 * measurement code:
 *   - a plain, uncontrolled <textarea> (keystroke → paint; cold start: a key shows in it);
 *   - one answer streamed through the host's WebSocket bridge, exactly as the app asks
 *     (stream-start 'ask'), batched once per animation frame as the app's stream client does,
 *     each batch's text appended to a <div>, and the app's own 'stream-painted' mark
 *     (src/renderer/src/bridge/latency-mark.ts, imported) after the frame that painted it.
 * With `?follow` (issue 50, round 7; latency-pipeline.ts --following-floor), the <div> is a scroller
 * of the chat column's size holding a screenful of earlier text, and it follows the end as the app's
 * list does (its scroll position written to the end when the growing text's size changes): the
 * least a page that follows a stream must do. Not used by `npm run bench`.
 * Built by the benchmark with Vite (floorRenderer in test/bench/app-bench.ts) into same-origin
 * files, as the host's CSP allows only scripts from its own origin.
 */
import type { StreamMessage } from '../../../src/shared/bridge-contract';
import { markStreamPainted } from '../../../src/renderer/src/bridge/latency-mark';

interface Floor {
  ask(question: string): Promise<string>;
  askTracked(question: string): Promise<string>;
  streaming: boolean;
  scrollFrames(paragraphs: number, text: string, stepPx: number, frames: number): Promise<number[]>;
}
declare global {
  interface Window {
    floor: Floor;
  }
}

const textarea = document.querySelector('textarea')!;
const answer = document.getElementById('answer')!;
/** Where a streamed answer's text goes: the <div>, or with `?follow` the growing end of its scroller. */
const target = new URLSearchParams(location.search).has('follow') ? followingScroller(answer) : answer;

function followingScroller(scroller: HTMLElement): HTMLElement {
  // Styles through the CSSOM: the host's CSP refuses inline style attributes and elements.
  Object.assign(scroller.style, { height: '620px', width: '1100px', overflowY: 'auto', overflowAnchor: 'none', padding: '1rem 1.5rem', boxSizing: 'border-box', lineHeight: '1.55', fontFamily: 'system-ui, sans-serif' });
  const earlier = 'Quick commerce in Bengaluru grew 42% last quarter, with Zepto and Blinkit opening dark stores across the city; analysts expect the pace to hold as tier-2 cities follow, and jewellery chains in Kerala keep adding stores ahead of the wedding season. ';
  for (let i = 0; i < 12; i += 1) {
    const p = document.createElement('p');
    p.style.maxWidth = '52rem';
    p.textContent = earlier.repeat(2);
    scroller.append(p);
  }
  const growing = document.createElement('p');
  growing.style.maxWidth = '52rem';
  growing.style.whiteSpace = 'pre-wrap';
  scroller.append(growing);
  // As the app's list: followed after the browser's layout, before paint, when the end grew.
  new ResizeObserver(() => (scroller.scrollTop = scroller.scrollHeight)).observe(growing);
  return growing;
}
const pending = new Map<number, (result: { ok: boolean; error?: { message?: string } }) => void>();
let nextId = 1;
let socket: Promise<WebSocket> | null = null;
// The app's latency mark is on for this page (as the benchmark turns it on for the app).
window.__clarityLatencyMarks = true;

function connect(): Promise<WebSocket> {
  if (socket) return socket;
  socket = new Promise<WebSocket>((resolve) => {
    const ws = new WebSocket(`ws://${location.host}/bridge`);
    ws.onopen = () => resolve(ws);
    ws.onmessage = (event: MessageEvent<string>) => {
      const frame = JSON.parse(event.data) as { t: string; id: number; result: { ok: boolean }; message: StreamMessage };
      if (frame.t === 'result') pending.get(frame.id)?.(frame.result);
      else if (frame.t === 'stream') onStream(frame.message);
    };
  });
  return socket;
}

// The app's stream client: messages buffered and handed over once per frame; the last one at once.
let buffer: StreamMessage[] = [];
let scheduled = false;
let finished: ((kind: string) => void) | null = null;
function onStream(message: StreamMessage): void {
  buffer.push(message);
  if (message.kind === 'done' || message.kind === 'error') {
    flush(false);
    finished?.(message.kind);
    return;
  }
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(() => flush(true));
  }
}

function flush(inFrameCallback: boolean): void {
  scheduled = false;
  const batch = buffer;
  buffer = [];
  if (batch.length === 0) return;
  let text = '';
  for (const message of batch) {
    if (message.kind !== 'events') continue;
    for (const event of message.events) if (event.type === 'text') text += event.text;
  }
  if (text) target.append(text);
  markStreamPainted(batch, inFrameCallback);
}

window.floor = {
  /** Streams one answer to `question` into the div; resolves with 'done' or 'error' when it ends. */
  async ask(question: string): Promise<string> {
    const ws = await connect();
    target.textContent = '';
    const ended = new Promise<string>((resolve) => (finished = resolve));
    const id = nextId++;
    const started = new Promise<{ ok: boolean; error?: { message?: string } }>((resolve) => pending.set(id, resolve));
    ws.send(JSON.stringify({ t: 'stream-start', id, streamId: `floor_${id}_${Date.now().toString(36)}`, method: 'ask', args: { question } }));
    const result = await started;
    if (!result.ok) throw new Error(`floor: the host refused the stream: ${result.error?.message ?? 'unknown'}`);
    return ended;
  },
  streaming: false,
  askTracked: async () => '',
  scrollFrames: async () => [],
};
window.floor.askTracked = async (question: string): Promise<string> => {
  window.floor.streaming = true;
  try {
    return await window.floor.ask(question);
  } finally {
    window.floor.streaming = false;
  }
};
textarea.focus();
document.title = 'ready';

/**
 * The scroll floor: `paragraphs` of text in the <div>, scrolled by `stepPx` per frame for
 * `frames` frames, with the same frame-interval code as the soak's scroll of the app's list.
 */
window.floor.scrollFrames = async (paragraphs: number, text: string, stepPx: number, frames: number): Promise<number[]> => {
  answer.textContent = '';
  const fragment = document.createDocumentFragment();
  for (let i = 0; i < paragraphs; i += 1) {
    const p = document.createElement('p');
    p.textContent = text;
    fragment.append(p);
  }
  answer.append(fragment);
  const scroller = document.scrollingElement!;
  scroller.scrollTop = 0;
  const times: number[] = [];
  await new Promise((resolve) => requestAnimationFrame(resolve));
  let last = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
  for (let i = 0; i < frames; i += 1) {
    scroller.scrollTop += stepPx;
    const now = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
    times.push(now - last);
    last = now;
  }
  answer.textContent = '';
  return times;
};
