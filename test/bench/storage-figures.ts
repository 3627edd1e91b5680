/**
 * Issue 48's storage figures as bench/results/latest.json keeps them (`storage.figures`): each
 * with its value, its goal, its floor where one exists (what the same machine does with nothing
 * to read, e.g. an empty database's restart), whether it met its goal, and when and under what
 * load it was measured (a section run alone, `STORAGE_ONLY=…`, updates its own figures).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';

export interface StorageFigure {
  value: number;
  goal: number;
  floor?: number;
  met: boolean;
  measured_at: string;
  load_average?: { start: number; end: number };
}

export type StorageFigures = Partial<Record<'service_start_1m_s' | 'restart_ms' | 'load_1m_s' | 'ranking_p95_ms' | 'ranking_heap_mb' | 'arrival_visible_other_process_p95_ms', StorageFigure>>;
type FigureInput = { value: number; goal: number; floor?: number };

/** Figures with `met` (value at or under its goal) and the time they were taken. */
export function storageFigures(inputs: Partial<Record<keyof StorageFigures, FigureInput>>, loadAverage?: { start: number; end: number }): StorageFigures {
  const measured_at = new Date().toISOString();
  const figures: StorageFigures = {};
  for (const [name, input] of Object.entries(inputs) as [keyof StorageFigures, FigureInput][]) {
    figures[name] = { ...input, met: input.value <= input.goal, measured_at, ...(loadAverage ? { load_average: loadAverage } : {}) };
  }
  return figures;
}

/** Updates these figures under `storage.figures` in bench/results/latest.json, keeping everything else. */
export async function saveStorageFigures(inputs: Partial<Record<keyof StorageFigures, FigureInput>>, loadAverage: { start: number; end: number }): Promise<void> {
  await mkdir('bench/results', { recursive: true });
  const file = 'bench/results/latest.json';
  const saved = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as { storage?: { figures?: StorageFigures } & Record<string, unknown> } & Record<string, unknown>;
  const storage = saved.storage ?? {};
  await writeFile(file, `${JSON.stringify({ ...saved, storage: { ...storage, figures: { ...storage.figures, ...storageFigures(inputs, loadAverage) } } }, null, 2)}\n`);
}
