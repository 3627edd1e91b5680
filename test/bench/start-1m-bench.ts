/**
 * `STORAGE_ONLY=start1m npm run bench:storage`: section 4's start alone (issue 48 item 4): the
 * same 1,000,000 generated signals loaded into a throw-away PostgreSQL cluster as the whole bench
 * loads them, then a service process over that database (`--signals 1000000 --database …`, the
 * whole bench's arguments) timed from its spawn to its listening line, to an ask's cited answer
 * (while its index warms, from the database's full-text search: server-warm-up.ts) and to its
 * index holding every signal. Writes `service_start_1m_s` with its goal into the storage figures
 * (bench/results/storage-start1m-latest.json beside). STORAGE_SIGNALS shrinks it for a trial run.
 * Also home of the two steps the whole bench shares with it (startAnswering, loadRows).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { generateCorpus } from '../../src/service/corpus/generator';
import type { Database } from '../../src/service/store/database';
import { migrate } from '../../src/service/store/migrations';
import { openPostgresDatabase } from '../../src/service/store/postgres';
import { SignalRepository, type StoredSignal } from '../../src/service/store/signal-repository';
import { startPostgresCluster } from '../support/postgres-cluster';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { saveStorageFigures } from './storage-figures';

export const START_1M_GOAL_S = 10;
const round = (n: number): number => Math.round(n * 10) / 10;

export interface Answering {
  service: ServiceProcess;
  listenMs: number;
  answerMs: number;
  readyMs: number;
  cited: boolean;
  /** The first answer's `x-index-state`: `warming` when it came from the database's search. */
  indexState: string | null;
  /** Its HTTP status, and its error code when it was not 200. */
  status: number;
  error: string | null;
}

/**
 * A service spawned until it answers: when it listens, when an ask first gets its cited answer
 * (what an analyst waits for; while the index warms it comes from the database's full-text
 * search, server-warm-up.ts), and when its index holds every signal (ms from the spawn).
 */
export async function startAnswering(args: string[], timeoutMs: number, question: string, entry?: readonly string[], onAnswered?: (answered: Omit<Answering, 'readyMs'>) => void): Promise<Answering> {
  const started = performance.now();
  const service = await startServiceProcess(args, timeoutMs, entry, {}, 'listening');
  const listenMs = performance.now() - started;
  const body = JSON.stringify({ messages: [{ role: 'user', content: question }] });
  const response = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const answer = (await response.json()) as { citations?: string[]; error?: string };
  const answerMs = performance.now() - started;
  const answered = { service, listenMs, answerMs, cited: response.status === 200 && (answer.citations?.length ?? 0) > 0, indexState: response.headers.get('x-index-state'), status: response.status, error: answer.error ?? null };
  onAnswered?.(answered);
  const readyMs = (await service.readyAt) - started;
  return { ...answered, readyMs };
}

/** Loads the rows through bulkLoad (the figure: ms), then analyses the tables (not counted). */
export async function loadRows(db: Database, rows: StoredSignal[]): Promise<number> {
  const signals = new SignalRepository(db);
  const started = performance.now();
  await signals.bulkLoad(rows, { timeoutMs: 1_800_000 });
  const ms = performance.now() - started;
  await db.query('ANALYZE signals');
  await db.query('ANALYZE signal_entities');
  return ms;
}

/** The service's arguments over `url` holding `count` signals: section 4's. */
export const bigServiceArgs = (count: number, url: string): string[] => ['--port', '0', '--pace-ms', '0', '--no-live', '--ask-limit', '1000000', '--signals', String(count), '--database', url];

export async function benchStart1mOnly(question: string): Promise<void> {
  const count = Number(process.env.STORAGE_SIGNALS ?? 1_000_000);
  const loadStart = loadavg()[0]!;
  const cluster = await startPostgresCluster();
  let service: ServiceProcess | null = null;
  try {
    console.log(`  generating and loading ${count.toLocaleString('en-IN')} signals into PostgreSQL…`);
    const url = await cluster.createDatabase('storage_bench');
    const db = await openPostgresDatabase(url);
    await migrate(db);
    const loadMs = await loadRows(
      db,
      generateCorpus({ signalCount: count }).signals.map((signal) => ({ ...signal, origin: 'sample' })),
    );
    await db.close();
    const loaded = round(loadavg()[0]!);
    console.log(`  loaded in ${round(loadMs / 1000)} s; a service over them…`);
    // Said at once: the index at 1M takes minutes more, and a run cut short still has the figure.
    const big = await startAnswering(bigServiceArgs(count, url), 1_800_000, question, undefined, (answered) =>
      console.log(`  listening after ${round(answered.listenMs / 1000)} s, a cited answer after ${round(answered.answerMs / 1000)} s (status ${answered.status}${answered.error ? ` ${answered.error}` : ''}, cited: ${answered.cited}, x-index-state ${answered.indexState}, load average ${round(loadavg()[0]!)}); waiting for the index…`),
    );
    service = big.service;
    const result = {
      measured_at: new Date().toISOString(),
      load_average: { start: round(loadStart), before_spawn: loaded, end: round(loadavg()[0]!) },
      signals: count,
      goal_service_start_1m_s: START_1M_GOAL_S,
      service_start_1m_s: round(big.answerMs / 1000),
      service_listen_1m_s: round(big.listenMs / 1000),
      service_ready_1m_s: round(big.readyMs / 1000),
      service_start_1m_cited: big.cited,
      first_answer_index_state: big.indexState,
      first_answer_status: big.error ? `${big.status} ${big.error}` : big.status,
      load_1m_s: round(loadMs / 1000),
    };
    await mkdir('bench/results', { recursive: true });
    await writeFile('bench/results/storage-start1m-latest.json', `${JSON.stringify(result, null, 2)}\n`);
    if (count === 1_000_000) await saveStorageFigures({ service_start_1m_s: { value: result.service_start_1m_s, goal: START_1M_GOAL_S } }, { start: result.load_average.start, end: result.load_average.end });
    const verdict = result.service_start_1m_s <= START_1M_GOAL_S ? 'met' : `missed by ${round(result.service_start_1m_s - START_1M_GOAL_S)}`;
    console.log(
      `\nA service over ${count.toLocaleString('en-IN')} signals on PostgreSQL (load average ${result.load_average.start} → ${loaded} at the spawn → ${result.load_average.end}): ` +
        `a cited answer ${result.service_start_1m_s} s after the spawn (goal ≤ ${START_1M_GOAL_S}: ${verdict}; cited: ${big.cited}, x-index-state ${big.indexState}); listening after ${result.service_listen_1m_s} s, index ready after ${result.service_ready_1m_s} s`,
    );
  } finally {
    await service?.stop().catch(() => undefined);
    await cluster.destroy();
  }
}
