/**
 * The signals the service ingested live in the database (`signals`, origin 'feed'); the store
 * and its search index are derived from them at every start, so a restart answers with what was
 * ingested before it. Reading 100,000 rows back from the embedded database and tokenizing them
 * takes tens of seconds (bench/notes.md), so an embedded service keeps a snapshot of that part of
 * the index beside its database (written when it closes, and after a start that had to read
 * many rows) and at start reads from the table only the rows changed after the snapshot
 * (`change_seq`, migration 5). The snapshot is binary (retrieval/packed-snapshot.ts: postings
 * as typed arrays, the signals' texts as one run of UTF-8, a checksum): its JSON predecessor took
 * seconds to parse at 100,000 signals. A signal of the row's own shape is packed without its keys
 * and read back by one object literal. The signals' long texts (body, summary, URLs) stay bytes in
 * the file, held in memory, and are decoded when read. The table stays the truth: a snapshot of other code, a
 * damaged or truncated one, or one whose signals and the changes since do not add up to the
 * table's count (a crash between a write and the snapshot, a removed row), is set aside and
 * every row is read.
 *
 * A team server (PostgreSQL, several processes writing) reads every row at start: sequence
 * numbers there may commit out of order, so "changed after n" is not exact across processes.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { codeHash } from './corpus/corpus-cache';
import type { FeedSignal } from './feed/signal-extraction';
import { takeEarlyRead } from './retrieval/early-reads';
import { packSnapshot, unpackSnapshotSteps } from './retrieval/packed-snapshot';
import { runSteps } from './server-warm-up';
import type { PackedIndex } from './retrieval/search-index';
import { lastItemsOf, type SignalStore } from './signal-store';
import type { Database } from './store/database';
import { SignalRepository, type StoredSignal } from './store/signal-repository';

/**
 * Bumped when the file's layout changes (the code hash covers the tokenizer and the packing). 3: long
 * texts decoded on use. 4: records of the row's shape packed without keys (CLRPACK3). 5: the index's
 * columns (publication times, entity lists) and each source's last-item time stored, taken as they are at start.
 */
const FORMAT = 5;
export const SIGNAL_SNAPSHOT_FILE = 'signal-index-snapshot.bin';
/** Format 1's file (JSON), removed once a binary snapshot is written. */
const JSON_SNAPSHOT_FILE = 'signal-index-snapshot.json';
/** A start that read more rows than this writes a snapshot at once (not only when it closes). */
const SNAPSHOT_AFTER_ROWS = 2_000;

interface SnapshotMeta {
  format: number;
  code: string;
  /** The table's newest change number the snapshot includes. */
  changeSeq: number;
  /** Each source's newest publication time among the snapshot's signals (signal-store.ts lastItemsOf). */
  lastItemAt: Record<string, string>;
}

interface SnapshotFile extends SnapshotMeta {
  signals: StoredSignal[];
  index: PackedIndex;
}

export interface StoredSignalsOptions {
  db: Database;
  store: SignalStore;
  /** Where the snapshot lives (the data directory) and the code it was built by; null: none (PostgreSQL, in memory). */
  snapshot: { dir: string; codeDir: string } | null;
  warn?: (message: string) => void;
}

export interface LoadedSignals {
  /** The feed's signals, as now held by the store. */
  signals: FeedSignal[];
  /** Whether they came from the snapshot (plus the rows changed since) or from the rows alone. */
  from: 'none' | 'snapshot' | 'rows';
  /** Rows read from the table. */
  rowsRead: number;
  ms: number;
}

export class StoredSignals {
  private readonly repository: SignalRepository;
  private readonly warn: (message: string) => void;
  private writing: Promise<void> | null = null;
  /** The change number of the snapshot on disk (read at start or written since); none: -1. */
  private snapshotSeq = -1;

  constructor(private readonly options: StoredSignalsOptions) {
    this.repository = new SignalRepository(options.db);
    this.warn = options.warn ?? ((message) => process.stderr.write(`${message}\n`));
  }

  private get file(): string | null {
    return this.options.snapshot ? join(this.options.snapshot.dir, SIGNAL_SNAPSHOT_FILE) : null;
  }

  /**
   * Reads the stored feed signals into the store (before the feed and follows start); `counted`
   * hears how many there are as soon as the table has said (the warm-up's progress). The
   * snapshot is unpacked and indexed in steps, awaiting `pause` between them (a warming service
   * answers asks meanwhile); an error `pause` throws (the service closing) ends the load.
   */
  async load(counted?: (count: number) => void, pause: () => Promise<void> = async () => undefined): Promise<LoadedSignals> {
    const started = performance.now();
    const mark = await this.repository.changeMark('feed');
    counted?.(mark.count);
    if (mark.count === 0) return { signals: [], from: 'none', rowsRead: 0, ms: performance.now() - started };
    const snapshot = await this.readSnapshot(pause);
    if (snapshot) {
      const changed = await this.readChanged(snapshot.changeSeq);
      // Nothing changed since (the usual restart): the snapshot's signals are the count (a repeated
      // id in it is refused by the index, and every row is read then).
      let count = snapshot.signals.length;
      if (changed.length > 0) {
        const ids = new Set(snapshot.signals.map((signal) => signal.id));
        for (const signal of changed) ids.add(signal.id);
        count = ids.size;
      }
      if (count === mark.count && (await this.tryAddSnapshot(snapshot, pause))) {
        this.snapshotSeq = snapshot.changeSeq;
        let signals = snapshot.signals;
        if (changed.length > 0) {
          const byId = new Map<string, StoredSignal>(snapshot.signals.map((signal) => [signal.id, signal]));
          for (const signal of changed) {
            byId.set(signal.id, signal);
            this.options.store.addSignal(signal, false);
          }
          signals = [...byId.values()];
        }
        if (changed.length > SNAPSHOT_AFTER_ROWS) this.writeInBackground();
        return { signals: signals as FeedSignal[], from: 'snapshot', rowsRead: changed.length, ms: performance.now() - started };
      }
      if (count !== mark.count) this.warn(`The signal index snapshot does not match the database (${count} signals, the table holds ${mark.count}); reading every signal from the database.`);
    }
    const rows = await this.readChanged(0);
    for (const signal of rows) this.options.store.addSignal(signal, false);
    if (rows.length > SNAPSHOT_AFTER_ROWS) this.writeInBackground();
    return { signals: rows as FeedSignal[], from: 'rows', rowsRead: rows.length, ms: performance.now() - started };
  }

  /**
   * Writes the snapshot of the feed signals the store holds, when they are exactly the table's
   * (same count: in the one process of an embedded database every stored row passed through the
   * store). Called when the service closes, after the feed stopped.
   */
  async writeSnapshot(): Promise<void> {
    const file = this.file;
    if (!file) return;
    await this.writing;
    const mark = await this.repository.changeMark('feed');
    const ids: string[] = [];
    for (const signal of this.options.store.allSignals()) if ((signal as Partial<StoredSignal>).origin === 'feed') ids.push(signal.id);
    if (ids.length !== mark.count || mark.count === 0 || mark.changeSeq === this.snapshotSeq) return;
    const { signals, packed } = this.options.store.index.packedSnapshotOf(ids);
    const meta: SnapshotMeta = { format: FORMAT, code: codeHash(this.options.snapshot!.codeDir), changeSeq: mark.changeSeq, lastItemAt: lastItemsOf(signals) };
    await writeFileAtomic(file, packSnapshot(meta, signals, packed, { storedSignals: true }), { mode: 0o600 });
    this.snapshotSeq = mark.changeSeq;
    await rm(join(this.options.snapshot!.dir, JSON_SNAPSHOT_FILE), { force: true });
    // The embedded database has no autovacuum: without a visibility map the next start's count of
    // the feed's signals (changeMark) reads every row (2.7-3.1 s at 100,000 under load), and the
    // first ask's full-text search waits behind it. PostgreSQL's autovacuum does this itself.
    // The snapshot is written either way: a vacuum that fails only leaves the next count slower.
    if (this.options.db.kind === 'embedded') {
      await this.options.db.query('VACUUM (ANALYZE) signals').catch((error: unknown) => this.warn(`The signals table could not be vacuumed (${error instanceof Error ? error.message : String(error)}); the next start counts its rows the slow way.`));
    }
  }

  /** Waits for a snapshot write under way (the service's close). */
  async settled(): Promise<void> {
    await this.writing;
  }

  private writeInBackground(): void {
    this.writing = this.writeSnapshot().catch((error: unknown) => this.warn(`The signal index snapshot could not be written (${error instanceof Error ? error.message : String(error)}).`));
  }

  /**
   * Indexes the snapshot's signals in steps; false (the store untouched: checked before it
   * changes) when it is malformed. What `pause` throws is not the snapshot's fault: thrown on.
   */
  private async tryAddSnapshot(snapshot: SnapshotFile, pause: () => Promise<void>): Promise<boolean> {
    const steps = this.options.store.addStoredSnapshotSteps(snapshot.signals, snapshot.index, snapshot.lastItemAt);
    for (;;) {
      let step: IteratorResult<void, void>;
      try {
        step = steps.next();
      } catch (error) {
        this.warn(`The signal index snapshot could not be used (${error instanceof Error ? error.message : String(error)}); reading every signal from the database.`);
        return false;
      }
      if (step.done) return true;
      await pause();
    }
  }

  private async readChanged(after: number): Promise<StoredSignal[]> {
    const signals: StoredSignal[] = [];
    for await (const page of this.repository.changedSince('feed', after)) for (const signal of page.signals) signals.push(signal);
    return signals;
  }

  private async readSnapshot(pause: () => Promise<void>): Promise<SnapshotFile | null> {
    const file = this.file;
    if (!file) return null;
    let bytes: Buffer;
    // Read and checksummed on a worker thread since the process began, when the entry started it.
    const early = await takeEarlyRead(file);
    try {
      bytes = early?.bytes ?? (await readFile(file));
    } catch {
      return null;
    }
    // Unpacked in steps; what the pause throws (the service closing) is not the file's fault.
    return runSteps(this.snapshotSteps(file, bytes, early ?? undefined), pause);
  }

  /** The snapshot file's contents, checked; null (said) when it is damaged or of other code. */
  private *snapshotSteps(file: string, bytes: Buffer, early: { checksum: number } | undefined): Generator<void, SnapshotFile | null> {
    try {
      const { meta, records, index } = yield* unpackSnapshotSteps(bytes, early);
      const { format, code, changeSeq, lastItemAt } = (meta ?? {}) as Partial<SnapshotMeta>;
      if (format !== FORMAT || code !== codeHash(this.options.snapshot!.codeDir)) return null;
      if (typeof changeSeq !== 'number' || !Number.isFinite(changeSeq)) throw new Error('it is incomplete');
      if (lastItemAt === null || typeof lastItemAt !== 'object' || Array.isArray(lastItemAt) || Object.values(lastItemAt).some((at) => typeof at !== 'string')) throw new Error('it is incomplete');
      for (const record of records) if (typeof (record as Partial<StoredSignal> | null)?.id !== 'string') throw new Error('it holds a signal without an id');
      return { format, code, changeSeq, lastItemAt, signals: records as StoredSignal[], index };
    } catch (error) {
      this.warn(`The signal index snapshot ${file} could not be used (${error instanceof Error ? error.message : String(error)}); reading every signal from the database.`);
      return null;
    }
  }
}
