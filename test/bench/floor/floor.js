/**
 * Benchmark only: the floor page (issue 31). Served by the browser host from the same origin as
 * the app, it does the least any page must do for the app's client figures, with the app's own
 * measurement code:
 *   - a plain, uncontrolled <textarea> (keystroke → paint; cold start: a key shows in it);
 *   - one answer streamed through the host's WebSocket bridge, exactly as the app asks
 *     (stream-start 'ask'), batched once per animation frame as the app's stream client does,
 *     each batch's text appended to a <div>, and the same 'stream-painted' mark as
 *     src/renderer/src/bridge/latency-mark.ts after the frame that painted it.
 * Plain JavaScript (no build): the host's CSP allows only scripts from its own origin.
 */
const textarea = document.querySelector('textarea');
const answer = document.getElementById('answer');
const pending = new Map();
let nextId = 1;
let socket = null;

function connect() {
  if (socket) return socket;
  socket = new Promise((resolve) => {
    const ws = new WebSocket(`ws://${location.host}/bridge`);
    ws.onopen = () => resolve(ws);
    ws.onmessage = (event) => {
      const frame = JSON.parse(event.data);
      if (frame.t === 'result') pending.get(frame.id)?.(frame.result);
      else if (frame.t === 'stream') onStream(frame.message);
    };
  });
  return socket;
}

// The app's stream client: messages buffered and handed over once per frame; the last one at once.
let buffer = [];
let scheduled = false;
let finished = null;
function onStream(message) {
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

function flush(inFrameCallback) {
  scheduled = false;
  const batch = buffer;
  buffer = [];
  if (batch.length === 0) return;
  let text = '';
  let receivedAt = null;
  for (const message of batch) {
    if (message.kind !== 'events') continue;
    if (message.receivedAt !== undefined && (receivedAt === null || message.receivedAt < receivedAt)) receivedAt = message.receivedAt;
    for (const event of message.events) if (event.type === 'text') text += event.text;
  }
  if (text) answer.append(text);
  if (receivedAt === null) return;
  // As latency-mark.ts: a message posted from a frame callback runs right after that frame's paint.
  const afterPaint = () => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const paintedAt = performance.timeOrigin + performance.now();
      performance.mark('stream-painted', { detail: { latencyMs: paintedAt - receivedAt, receivedAt, paintedAt } });
      channel.port1.close();
    };
    channel.port2.postMessage(null);
  };
  if (inFrameCallback) afterPaint();
  else requestAnimationFrame(afterPaint);
}

window.floor = {
  /** Streams one answer to `question` into the div; resolves with 'done' or 'error' when it ends. */
  async ask(question) {
    const ws = await connect();
    answer.textContent = '';
    const ended = new Promise((resolve) => (finished = resolve));
    const id = nextId++;
    const started = new Promise((resolve) => pending.set(id, resolve));
    ws.send(JSON.stringify({ t: 'stream-start', id, streamId: `floor_${id}_${Date.now().toString(36)}`, method: 'ask', args: { question } }));
    const result = await started;
    if (!result.ok) throw new Error(`floor: the host refused the stream: ${result.error?.message ?? 'unknown'}`);
    return ended;
  },
  streaming: false,
};
window.floor.askTracked = async (question) => {
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
window.floor.scrollFrames = async (paragraphs, text, stepPx, frames) => {
  answer.textContent = '';
  const fragment = document.createDocumentFragment();
  for (let i = 0; i < paragraphs; i += 1) {
    const p = document.createElement('p');
    p.textContent = text;
    fragment.append(p);
  }
  answer.append(fragment);
  const scroller = document.scrollingElement;
  scroller.scrollTop = 0;
  const times = [];
  await new Promise((resolve) => requestAnimationFrame(resolve));
  let last = await new Promise((resolve) => requestAnimationFrame(resolve));
  for (let i = 0; i < frames; i += 1) {
    scroller.scrollTop += stepPx;
    const now = await new Promise((resolve) => requestAnimationFrame(resolve));
    times.push(now - last);
    last = now;
  }
  answer.textContent = '';
  return times;
};
