/**
 * A service listens before it holds its signals (src/service/server-warm-up.ts, issue 48 item 4):
 * while its index warms, an ask is answered from the database's full-text search, a real cited
 * answer marked `x-index-state: warming`; a route that reads the signals waits for them; once warm
 * the same ask is answered from the index exactly as a service started the old way answers it.
 * The same on a team server's PostgreSQL (its full-text search answers meanwhile).
 * A kill -9 while the index is still being built loses nothing: every stored signal and the
 * session of the ask answered meanwhile are there after the restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../../src/service/corpus/generator';
import { startService, type RunningService, type ServiceOptions } from '../../src/service/server';
import { SignalRepository, type StoredSignal } from '../../src/service/store/signal-repository';
import { sharedPostgresCluster } from '../support/postgres-cluster';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const dirs: string[] = [];
const running = new Set<ServiceProcess>();

afterAll(async () => {
  await Promise.all([...running].map((service) => service.kill9()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-warm-start-'));
  dirs.push(dir);
  return dir;
}

const codeDir = fileURLToPath(new URL('../../src/service/', import.meta.url));
const NOW = Date.now();
const options = (dataDir: string): ServiceOptions => ({ dataDir, corpusCache: { dir: dataDir, codeDir }, signalCount: 2_000, liveFeed: false, paceMs: 0, sample: 'snapshot', now: () => NOW });

const QUOKKA = 'sig_ca00000000000007';
const QUESTION = 'What did DMart say about its Quokka pilot stores in Nagpur?';

/** Fetched-looking signals (origin feed) with ids of their own; one tells a story only it tells. */
function feedSignals(count: number): StoredSignal[] {
  const signals: StoredSignal[] = generateCorpus({ signalCount: count, seed: 31 }).signals.map((signal, i) => ({
    ...signal,
    id: `sig_ca${i.toString(16).padStart(14, '0')}`,
    slug: `${signal.slug}-ca`,
    origin: 'feed',
    canonical_url: `https://news.example/ca/${i}`,
  }));
  Object.assign(signals[7]!, {
    title: 'DMart opens 12 Quokka pilot stores in Nagpur',
    summary: 'DMart said its Quokka pilot stores in Nagpur beat their sales plan in the first month.',
    body: 'DMart said its Quokka pilot stores in Nagpur beat their sales plan in the first month, and that more Quokka stores would follow.',
    entities: { retailers: ['DMart'], segments: [], cities: ['Nagpur'], states: [] },
  });
  return signals;
}

/** A data directory whose embedded database holds these fetched signals (stored, not yet indexed by any start). */
async function storedCorpus(rows: StoredSignal[]): Promise<string> {
  // The migrated empty database a first start leaves (the suite's copy): the start under test is the one after this.
  const dataDir = await seedServiceFolder(await tempDir(), { corpus: false });
  const seeding = await startService(options(dataDir));
  await new SignalRepository(seeding.db).put(rows, { timeoutMs: 120_000 });
  await seeding.close();
  return dataDir;
}

interface Answer {
  content: string;
  /** The cited signals' ids. */
  citations: string[];
  session_id: string;
  verification: unknown;
}

async function ask(url: string, question: string, sessionId?: string): Promise<{ state: string | null; answer: Answer }> {
  const response = await fetch(`${url}/api/v1/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: question }], ...(sessionId ? { session_id: sessionId } : {}) }),
  });
  expect(response.status).toBe(200);
  return { state: response.headers.get('x-index-state'), answer: (await response.json()) as Answer };
}

const citedIds = (answer: Answer): string[] => answer.citations;

describe('a service that listens before its index is warm', () => {
  it('answers a cited ask from the database while warming, waits on routes that read the signals, and answers as ever once warm', { timeout: 300_000 }, async () => {
    const rows = feedSignals(600);
    const dataDir = await storedCorpus(rows);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const service: RunningService = await startService({ ...options(dataDir), warmInBackground: true, holdWarmUp: held });
    let warmAnswer: Answer;
    let readyAnswer: Answer;
    try {
      expect(service.warmUp.state).toBe('warming');
      expect(service.store.index.size).toBe(0);

      // Before the index holds anything: a real answer, cited from the stored signals, marked warming.
      const warming = await ask(service.url, QUESTION);
      expect(warming.state).toBe('warming');
      warmAnswer = warming.answer;
      expect(citedIds(warmAnswer)).toContain(QUOKKA);
      expect(warmAnswer.content).toMatch(/Quokka/);
      expect(warmAnswer.verification).toBeTruthy();
      const stored = new Set(rows.map((row) => row.id));
      for (const id of citedIds(warmAnswer)) expect(stored.has(id)).toBe(true);
      expect(service.warmUp.state).toBe('warming');

      // Discover reads the signals: asked while warming, it is answered once they are all held.
      const discovering = fetch(`${service.url}/api/v1/discover?limit=100&id=${QUOKKA}`);
      release();
      const discover = await discovering;
      expect(discover.headers.get('x-index-state')).toBe('ready');
      expect(((await discover.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id)).toEqual([QUOKKA]);

      await service.warmUp.whenReady();
      expect(service.warmUp.state).toBe('ready');
      expect(service.storedSignals).toMatchObject({ from: 'rows', rowsRead: rows.length });
      const ready = await ask(service.url, QUESTION);
      expect(ready.state).toBe('ready');
      readyAnswer = ready.answer;
      expect(citedIds(readyAnswer)).toContain(QUOKKA);
    } finally {
      await service.close();
    }

    // Started the old way (ready before it returns), the same ask gets the same answer.
    const before = await startService(options(dataDir));
    try {
      const answered = await ask(before.url, QUESTION);
      expect(answered.state).toBe('ready');
      expect(answered.answer.content).toBe(readyAnswer.content);
      expect(citedIds(answered.answer)).toEqual(citedIds(readyAnswer));
    } finally {
      await before.close();
    }
  });

  it('on PostgreSQL too: an ask while warming is answered from its full-text search, cited, and once warm from the index', { timeout: 300_000 }, async () => {
    const cluster = await sharedPostgresCluster();
    try {
      const databaseUrl = await cluster.createDatabase('warm_start');
      const rows = feedSignals(300);
      const seeding = await startService({ ...options(await tempDir()), databaseUrl });
      await new SignalRepository(seeding.db).put(rows, { timeoutMs: 120_000 });
      await seeding.close();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const service = await startService({ ...options(await tempDir()), databaseUrl, warmInBackground: true, holdWarmUp: held });
      try {
        expect(service.warmUp.state).toBe('warming');
        const warming = await ask(service.url, QUESTION);
        expect(warming.state).toBe('warming');
        expect(citedIds(warming.answer)).toContain(QUOKKA);
        release();
        await service.warmUp.whenReady();
        const ready = await ask(service.url, QUESTION);
        expect(ready.state).toBe('ready');
        expect(citedIds(ready.answer)).toContain(QUOKKA);
      } finally {
        release();
        await service.close();
      }
    } finally {
      await cluster.destroy();
    }
  });

  it('a kill -9 while the index is still being built loses no stored signal and no session answered meanwhile', { timeout: 600_000 }, async () => {
    const rows = feedSignals(400);
    const dataDir = await storedCorpus(rows);
    // A corpus big enough that its generation and indexing take seconds after the service listens.
    const args = ['--port', '0', '--pace-ms', '0', '--no-live', '--data-dir', dataDir, '--signals', '100000'];
    const first = await startServiceProcess(args, 300_000, undefined, {}, 'listening');
    running.add(first);
    let printed = '';
    first.child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const warming = await ask(first.url, QUESTION);
    expect(warming.state).toBe('warming');
    expect(citedIds(warming.answer)).toContain(QUOKKA);
    await first.kill9();
    running.delete(first);
    // Killed before its index was ready (it prints index_ready when it is).
    expect(printed).not.toContain('index_ready');

    // The restart needs no big sample to show what was kept: the stored rows and the session.
    const second = await startServiceProcess(args.map((arg) => (arg === '100000' ? '2000' : arg)), 300_000, undefined, {}, 'listening');
    running.add(second);
    // Every stored signal is found once the restarted service holds them (Discover waits for it).
    const found: string[] = [];
    for (let at = 0; at < rows.length; at += 100) {
      const ids = rows.slice(at, at + 100).map((row) => row.id);
      const response = await fetch(`${second.url}/api/v1/discover?limit=100&id=${ids.join(',')}`);
      expect(response.headers.get('x-index-state')).toBe('ready');
      found.push(...((await response.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id));
    }
    expect(found.sort()).toEqual(rows.map((row) => row.id).sort());
    // The session answered while warming continues.
    const followUp = await ask(second.url, 'And in Pune?', warming.answer.session_id);
    expect(followUp.answer.session_id).toBe(warming.answer.session_id);
    await second.stop();
    running.delete(second);
  });
});
