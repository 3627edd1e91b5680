/**
 * Benchmark only: the floor page (issue 31). Served by the browser host from the same origin as
 * the app, it does the least any page must do for the app's client figures, with the app's own
 * measurement code:
 *   - a plain, uncontrolled <textarea> (keystroke → paint; cold start: a key shows in it);
 *   - one answer streamed through the host's WebSocket bridge, exactly as the app asks
 *     (stream-start 'ask'), batched once per animation frame as the app's stream client does,
 *     each batch's text appended to a <div>, and the app's own 'stream-painted' mark
 *     (src/renderer/src/bridge/latency-mark.ts, imported) after the frame that painted it.
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
  if (text) answer.append(text);
  markStreamPainted(batch, inFrameCallback);
}

window.floor = {
  /** Streams one answer to `question` into the div; resolves with 'done' or 'error' when it ends. */
  async ask(question: string): Promise<string> {
    const ws = await connect();
    answer.textContent = '';
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
