import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import {
  changesSeries,
  emptyDocument,
  SCHEMA_VERSION,
  type LogLine,
  type Mutation,
  type StateDocument,
  type StoredRecord,
} from './document.js';
import { checkDocument, checkMutation } from './checks.js';
import { Compaction } from './compaction.js';
import { StoreError, StoreValueError, StoreWriteError, UndeclaredCollectionError } from './errors.js';
import { LOG_FILE, SNAPSHOT_FILE } from './file-names.js';
import type { IndexKey } from './indexes.js';
import { DirectoryLock } from './lock.js';
import { MutationLog } from './mutation-log.js';
import { readLog, type ReadLog } from './replay.js';
import { loadedBytes } from './scavenge.js';
import { DurableJSONFile, removeLeftTemporaries } from './snapshot-file.js';
import { MemoryState, type Undo } from './memory.js';
import { checkSeriesDocument, type Series, type SeriesItem } from './series.js';

export interface StoreOptions {
  /** Data directory; ignored with `inMemory`. */
  dir?: string;
  inMemory?: boolean;
  /**
   * Log size in bytes past which the snapshot is rewritten and the lines it holds dropped from the log. Unset: 16 MiB,
   * or the snapshot's own size if larger.
   */
  compactBytes?: number;
  warn?: (message: string) => void;
  /** Open without taking the lock and without writing (for `token` and `fixtures export` on a stopped directory). */
  readOnly?: boolean;
}

/**
 * The emulator's state: named collections of records. All changes go through `commit` (or `put`/`delete`),
 * which checks them, applies them in memory at once and resolves when they are durable (or undoes them and
 * rejects if they cannot be written). Reads are plain map lookups.
 */
export class Store {
  private state = new MemoryState();
  private log: MutationLog<Undo> | undefined;
  private lock: DirectoryLock | undefined;
  private compaction: Compaction<Undo> | undefined;
  private closed = false;
  /** The collections and series writes may go to; empty: any (a store no descriptor declared anything in). */
  private readonly declared = new Set<string>();

  private constructor(
    private readonly db: Low<StateDocument>,
    private readonly options: StoreOptions,
  ) {}

  static async open(options: StoreOptions): Promise<Store> {
    const warn = options.warn ?? ((m: string) => process.emitWarning(m));
    if (options.inMemory || !options.dir) {
      return new Store(new Low(new Memory<StateDocument>(), emptyDocument()), { ...options, inMemory: true });
    }
    const dir = options.dir;
    if (!options.readOnly) {
      try {
        mkdirSync(dir, { recursive: true });
      } catch (err) {
        throw new StoreError(`Cannot use ${dir} as the data directory: ${(err as Error).message}.`);
      }
    }
    const lock = options.readOnly ? undefined : DirectoryLock.acquire(dir, warn);
    try {
      if (lock) removeLeftTemporaries(dir);
      const logPath = join(dir, LOG_FILE);
      // The log before the snapshot: a compaction writes its snapshot before it shortens the log, so a read-only open
      // beside a running emulator finds a snapshot at least as new as the log it read (the other order could pair
      // a shortened log with the snapshot before it: a gap).
      const logged = await readLog(logPath, warn, !options.readOnly);
      const snapshotFile = new DurableJSONFile<StateDocument>(join(dir, SNAPSHOT_FILE));
      const db = new Low(snapshotFile, emptyDocument());
      await db.read();
      const store = new Store(db, { ...options, warn });
      store.lock = lock;
      const snapshot = join(dir, SNAPSHOT_FILE);
      try {
        checkDocument(db.data);
      } catch (err) {
        if (!(err instanceof StoreValueError)) throw err;
        throw new StoreError(
          `${snapshot} is not a platform-emu state document: ${err.message} The emulator did not touch it; ` +
            `repair or move it away, then start again.`,
        );
      }
      if (db.data.schemaVersion > SCHEMA_VERSION) {
        throw new StoreError(
          `${snapshot} was written by a newer platform-emu (state schema ${db.data.schemaVersion}; this one ` +
            `reads up to ${SCHEMA_VERSION}). ` +
            'Upgrade platform-emu or use another --data directory.',
        );
      }
      store.state.load(db.data, snapshot);
      const size = store.replay(logPath, logged);
      // A read-only store is the CLI's, which exits soon after: it has no garbage to give back.
      if (!options.readOnly) {
        loadedBytes(snapshotFile.length + size);
        const compaction = (store.compaction = new Compaction<Undo>(snapshotFile, options.compactBytes, warn));
        store.log = await MutationLog.open(logPath, size, {
          written: (undos) => {
            for (const undo of undos) if (undo.series) store.state.applySeries(undo.series);
          },
          afterFlush: async (bytes) =>
            compaction.afterFlush(store.log!, bytes, () => store.state.durableDocument(store.log!.unwritten)),
          lost: (undos) => store.state.revert(undos),
        });
      }
      return store;
    } catch (err) {
      lock?.release();
      throw err;
    }
  }

  /** Opened by the CLI on a stopped data directory: readable, never written. */
  get isReadOnly(): boolean {
    return this.options.readOnly === true;
  }

  get dataDir(): string | undefined {
    return this.options.inMemory ? undefined : this.options.dir;
  }

  get directoryLock(): DirectoryLock | undefined {
    return this.lock;
  }

  get revision(): number {
    return this.state.seq;
  }

  /** Why the last write to disk failed, while no write has succeeded since (the emulator reports itself failing). */
  get failure(): string | undefined {
    return this.log?.failure?.message;
  }

  isEmpty(): boolean {
    return this.state.isEmpty();
  }

  /**
   * Declares the collections (and series) that may be written. Once a store has declarations (the emulator declares
   * every service descriptor's `collections` and `series`), a write anywhere else is refused before anything changes:
   * a service cannot fill a collection that export would carry and import would refuse.
   */
  declare(names: Iterable<string>): void {
    for (const name of names) this.declared.add(name);
  }

  isDeclared(collection: string): boolean {
    return this.declared.size === 0 || this.declared.has(collection);
  }

  get<T = StoredRecord>(collection: string, id: string): T | undefined {
    return this.state.get<T>(collection, id);
  }

  has(collection: string, id: string): boolean {
    return this.state.has(collection, id);
  }

  /** The revision of one record (for its ETag), or of the whole collection when `id` is absent. */
  rev(collection: string, id?: string): number {
    return this.state.rev(collection, id);
  }

  values<T = StoredRecord>(collection: string): IterableIterator<T> {
    return this.state.values<T>(collection);
  }

  count(collection: string): number {
    return this.state.count(collection);
  }

  /** The next integer id of a counter (never reused, also across restarts). */
  nextId(counter: string): number {
    return this.state.nextId(counter);
  }

  /** A secondary index kept up to date on every commit; `lookup` answers it without a scan. */
  defineIndex(collection: string, name: string, key: IndexKey): void {
    this.state.defineIndex(collection, name, key);
  }

  lookup<T = StoredRecord>(collection: string, indexName: string, key: string): T[] {
    return this.state.lookup<T>(collection, indexName, key);
  }

  put(collection: string, id: string, value: StoredRecord): Promise<void> {
    return this.commit([{ op: 'put', c: collection, id, v: value }]);
  }

  delete(collection: string, id: string): Promise<void> {
    return this.commit([{ op: 'del', c: collection, id }]);
  }

  /** Adds items to a series (kept sorted by time); the log line holds only the new items, never the whole series. */
  append(collection: string, id: string, items: SeriesItem[]): Promise<void> {
    return this.commit([{ op: 'append', c: collection, id, v: items }]);
  }

  /** A series for reading (binary search by time, last item without a scan); never changed by the caller. */
  getSeries(collection: string, id: string): Series | undefined {
    return this.state.getSeries(collection, id);
  }

  /**
   * All or nothing: checks the mutations and serializes their log line first (a StoreValueError changes
   * nothing), then applies them in memory at once (all of them, in order) and resolves once they are on disk.
   * If the line cannot be written, the change is undone in memory and the promise rejects with a StoreWriteError.
   * `writers`: how many requests wait for this commit (a batch made for several), as the log weighs them.
   */
  commit(mutations: Mutation[], writers = 1): Promise<void> {
    if (this.options.readOnly) return Promise.reject(new Error('This store was opened read-only.'));
    if (this.closed) return Promise.reject(new Error('The store is closed: the emulator is stopping.'));
    const state = this.state;
    const line: LogLine = { s: state.seq + 1, m: mutations };
    if (state.advancedCounters.size > 0) line.c = Object.fromEntries(state.advancedCounters);
    let text = '';
    try {
      for (const m of mutations) {
        if (!this.isDeclared(m.c)) throw new UndeclaredCollectionError(m.c);
        checkMutation(m);
      }
      if (this.log) text = JSON.stringify(line) + '\n';
    } catch (err) {
      if (err instanceof UndeclaredCollectionError) return Promise.reject(err);
      return Promise.reject(
        err instanceof StoreValueError
          ? err
          : new StoreValueError(`The change cannot be stored: ${(err as Error).message}.`),
      );
    }
    state.advancedCounters.clear();
    if (!this.log) {
      state.apply(line);
      return Promise.resolve();
    }
    const undo: Undo = { seq: state.seq, counters: line.c, changes: [] };
    // Series changes cannot be undone cheaply (an item may replace one of equal time): they reach memory once written,
    // in the log's `written` step, before the answer and before a compaction builds the snapshot from memory.
    if (line.m.some(changesSeries)) undo.series = line.m;
    state.apply(line, undo);
    return this.log.append(text, undo, writers);
  }

  /** The whole state as one document (a copy a caller may keep). */
  exportDocument(): StateDocument {
    return this.state.exportDocument();
  }

  /** The id counters (`nextId`) by name, as the state holds them now (a copy). */
  counters(): Record<string, number> {
    return this.state.countersNow();
  }

  /**
   * Replaces the whole state (import, reset) and makes it durable as a new snapshot. The document is checked
   * whole first (a StoreValueError naming the place changes nothing), unless `checked`: it was checked as the store
   * checks it already (another store's export, whose records were checked as they were committed there, or one that
   * passed `checkDocument`), and a reset at 10,000 endpoints would pay for the same checks twice (bench figure 9c).
   */
  async replace(document: StateDocument, { checked = false }: { checked?: boolean } = {}): Promise<void> {
    try {
      if (!checked) {
        checkDocument(document);
        if (document.series !== undefined) checkSeriesDocument(document.series, 'the imported document');
      }
    } catch (err) {
      if (err instanceof StoreValueError || err instanceof StoreError)
        throw new StoreValueError(`The imported document: ${err.message}`);
      throw err;
    }
    const apply = async () => {
      const before = this.state;
      const next = before.emptyCopy();
      next.load({ ...document, seq: before.seq + 1 }, 'the imported document');
      this.state = next;
      try {
        await this.writeSnapshot();
      } catch (err) {
        // The disk keeps the old state, so memory does too; changes made on the new state meanwhile are undone first.
        const failed = new StoreWriteError(
          `The new state could not be written to disk (${(err as Error).message}); the state is as it was.`,
        );
        this.log?.abandonQueued(failed);
        this.state = before;
        throw failed;
      }
    };
    const { log, compaction } = this;
    if (log && compaction) await compaction.heldOff(() => log.exclusive(apply));
    else await apply();
  }

  /** Writes the snapshot, empties the log and releases the lock. */
  async close(): Promise<void> {
    this.closed = true;
    try {
      const { log, compaction } = this;
      if (log && compaction) {
        try {
          await compaction.heldOff(() => log.exclusive(() => this.writeSnapshot()));
        } finally {
          await log.close();
          this.log = undefined;
        }
      }
    } finally {
      this.lock?.release();
      this.lock = undefined;
    }
  }

  /**
   * Applies the log lines the snapshot does not hold yet. They must follow it without a gap: a missing
   * mutation means a lost or foreign file, and starting anyway would silently drop state.
   */
  private replay(path: string, { lines, lineNumbers, size }: ReadLog): number {
    const state = this.state;
    const snapshotSeq = state.seq;
    lines.forEach((line, i) => {
      if (line.s <= snapshotSeq && state.seq === snapshotSeq) return;
      if (line.s !== state.seq + 1) {
        throw new StoreError(
          `${path} line ${lineNumbers[i]} holds mutation ${line.s} where mutation ${state.seq + 1} was expected ` +
            `(${SNAPSHOT_FILE} ends at mutation ${snapshotSeq}): the log does not belong to this snapshot or lost lines. ` +
            'The emulator did not touch either file; restore them, or move them away to start empty.',
        );
      }
      state.apply(line);
    });
    return size;
  }

  /** Resolves once the compaction under way, if any, has finished (its snapshot written and the log shortened). */
  async compacted(): Promise<void> {
    await this.compaction?.finished();
  }

  private async writeSnapshot(): Promise<void> {
    if (this.options.inMemory || this.options.readOnly) return;
    // Never what the log has not taken: a line still queued may yet fail, and its change be undone.
    this.db.data = this.state.durableDocument(this.log?.unwritten ?? []);
    try {
      await this.db.write();
    } finally {
      this.db.data = emptyDocument();
    }
    // The snapshot holds everything now; a log that cannot be emptied only has lines the next start skips.
    await this.log
      ?.truncate()
      .catch((err: Error) =>
        this.options.warn?.(
          `Could not empty ${LOG_FILE} after writing ${SNAPSHOT_FILE} (${err.message}); its lines are skipped on the next start.`,
        ),
      );
  }
}
