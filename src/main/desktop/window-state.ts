/**
 * The main window's size and place, remembered between launches and clamped to a display that
 * exists now (a laptop undocked from its second monitor must not open the window off-screen).
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState extends Rect {
  maximized: boolean;
}

export const DEFAULT_SIZE = { width: 1280, height: 820 };
export const MIN_SIZE = { width: 720, height: 480 };
/** How much of the title bar must be on a display for the window to count as reachable. */
const MIN_VISIBLE = 80;

/** Reads a saved state; anything malformed gives null (then the default is used). */
export function parseWindowState(value: unknown): WindowState | null {
  if (!value || typeof value !== 'object') return null;
  const state = value as Record<string, unknown>;
  const numbers = ['x', 'y', 'width', 'height'].map((key) => state[key]);
  if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n) && Math.abs(n) < 100_000)) return null;
  const [x, y, width, height] = numbers as number[];
  if (width! <= 0 || height! <= 0) return null;
  return { x: Math.round(x!), y: Math.round(y!), width: Math.round(width!), height: Math.round(height!), maximized: state.maximized === true };
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function centred(size: { width: number; height: number }, area: Rect): Rect {
  const width = Math.min(size.width, area.width);
  const height = Math.min(size.height, area.height);
  return { x: area.x + Math.round((area.width - width) / 2), y: area.y + Math.round((area.height - height) / 2), width, height };
}

/**
 * Where to open the window: the saved bounds on the display they overlap most, shrunk to fit
 * and moved fully inside its work area; centred on the primary display when there is no saved
 * state or its display is gone. `workAreas[0]` is the primary display.
 */
export function restoreBounds(saved: WindowState | null, workAreas: readonly Rect[]): WindowState {
  const primary = workAreas[0] ?? { x: 0, y: 0, ...DEFAULT_SIZE };
  if (!saved) return { ...centred(DEFAULT_SIZE, primary), maximized: false };
  let best: Rect | null = null;
  let bestOverlap = 0;
  for (const area of workAreas) {
    const titleBar = { x: saved.x, y: saved.y, width: saved.width, height: Math.min(saved.height, 40) };
    const visible = overlap(titleBar, area);
    if (visible > bestOverlap) {
      best = area;
      bestOverlap = visible;
    }
  }
  const reachable = best !== null && bestOverlap >= MIN_VISIBLE * Math.min(40, saved.height);
  if (!reachable || !best) return { ...centred(saved, primary), maximized: saved.maximized };
  const width = Math.max(Math.min(saved.width, best.width), Math.min(MIN_SIZE.width, best.width));
  const height = Math.max(Math.min(saved.height, best.height), Math.min(MIN_SIZE.height, best.height));
  const x = Math.min(Math.max(saved.x, best.x), best.x + best.width - width);
  const y = Math.min(Math.max(saved.y, best.y), best.y + best.height - height);
  return { x, y, width, height, maximized: saved.maximized };
}
