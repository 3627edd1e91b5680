/**
 * Fault injection for tests. Off by default: only a service started with faults enabled
 * (`--enable-faults` or `faults: { enabled: true }`) honours the markers below in a question,
 * so no request alone can trigger one.
 *   [fault:500] [fault:503]        answer with that status
 *   [fault:latency=MS]             wait before answering
 *   [fault:drop-after=BYTES]       cut the SSE connection after that many bytes
 *   [fault:drop-once=BYTES]        the same, the first time a question is asked only (retry works)
 *   [fault:stall]                  send a little of the stream, then go silent (connection open)
 *   [fault:malformed]              send a frame with broken JSON mid-stream, then go on
 *   [fault:stream-error]           fail mid-stream: an `error` event, then the stream ends
 */
export interface FaultOptions {
  enabled: boolean;
}

export type Fault =
  | { kind: 'status'; status: 500 | 503 }
  | { kind: 'latency'; ms: number }
  | { kind: 'drop-after'; bytes: number }
  | { kind: 'stall' }
  | { kind: 'malformed' }
  | { kind: 'stream-error' };

const MARKER = /\[fault:([a-z0-9=-]+)\]/;

const droppedOnce = new Set<string>();

export function faultFor(question: string, options: FaultOptions): Fault | null {
  if (!options.enabled) return null;
  const match = MARKER.exec(question)?.[1];
  if (!match) return null;
  const [name, value] = match.split('=');
  const number = Number(value);
  switch (name) {
    case '500':
      return { kind: 'status', status: 500 };
    case '503':
      return { kind: 'status', status: 503 };
    case 'latency':
      return Number.isFinite(number) ? { kind: 'latency', ms: Math.min(number, 60_000) } : null;
    case 'drop-after':
      return Number.isFinite(number) ? { kind: 'drop-after', bytes: number } : null;
    case 'drop-once':
      if (!Number.isFinite(number) || droppedOnce.has(question)) return null;
      droppedOnce.add(question);
      return { kind: 'drop-after', bytes: number };
    case 'stall':
      return { kind: 'stall' };
    case 'malformed':
      return { kind: 'malformed' };
    case 'stream-error':
      return { kind: 'stream-error' };
    default:
      return null;
  }
}

export function stripFaultMarkers(text: string): string {
  return text.replace(/\[fault:[a-z0-9=-]+\]/g, '').trim();
}
