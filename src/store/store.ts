import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import { emptyDocument, SCHEMA_VERSION, setOwn, type LogLine, type Mutation, type StateDocument, type StoredRecord } from './document.js';
import { checkDocument, checkMutation } from './checks.js';
import { StoreError, StoreValueError, StoreWriteError } from './errors.js';
import { indexAdd, indexRemove, type Index, type IndexKey } from './indexes.js';
import { DirectoryLock } from './lock.js';
import { MutationLog } from './mutation-log.js';
import { readLog } from './replay.js';
import { DurableJSONFile } from './snapshot-file.js';
import { checkSeriesDocument, SeriesCollections, type Series, type SeriesItem } from './series.js';

export interface StoreOptions {
  /** Data directory; ignored with `inMemory`. */
  dir?: string;
  inMemory?: boolean;
  /** Log size in bytes past which the snapshot is rewritten and the log emptied. */
  compactBytes?: number;
  warn?: (message: string) => void;
  /** Open without taking the lock and without writing (for `token` and `fixtures export` on a stopped directory). */
  readOnly?: boolean;
}

interface Entry {
  value: StoredRecord;
  rev: number;
}

/** What one applied commit changed, so that it can be undone if its log line never reaches the disk. */
interface Undo {
  /** The sequence number before the commit. */
  seq: number;
  counters: Record<string, number> | undefined;
  changes: Array<{ c: string; id: string; previous: Entry | undefined; collectionRev: number | undefined }>;
}

const changesSeries = (m: Mutation) => m.op === 'append';

const SNAPSHOT = 'state.json';
const LOG = 'mutations.jsonl';

/**
 * The emulator's state: named collections of records. All changes go through `commit` (or `put`/`delete`),
 * which checks them, applies them in memory at once and resolves when they are durable (or undoes them and
 * rejects if they cannot be written). Reads are plain map lookups.
 */
export class Store {
  private collections = new Map<string, Map<string, Entry>>();
  private collectionRevs = new Map<string, number>();
  private counters = new Map<string, number>();
  private indexes = new Map<string, Map<string, Index>>();
  private series = new SeriesCollections();
  private seq = 0;
  /** Counters `nextId` advanced since the last commit; the next log line carries them. */
  private advancedCounters = new Map<string, number>();
  private log: MutationLog<Undo> | undefined;
  private lock: DirectoryLock | undefined;
  private compacting = false;
  private closed = false;

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
      const db = new Low(new DurableJSONFile<StateDocument>(join(dir, SNAPSHOT)), emptyDocument());
      await db.read();
      const store = new Store(db, { ...options, warn });
      store.lock = lock;
      const snapshot = join(dir, SNAPSHOT);
      try {
        checkDocument(db.data);
      } catch (err) {
        if (!(err instanceof StoreValueError)) throw err;
        throw new StoreError(`${snapshot} is not a platform-emu state document: ${err.message} The emulator did not touch it; repair or move it away, then start again.`);
      }
      if (db.data.schemaVersion > SCHEMA_VERSION) {
        throw new StoreError(
          `${snapshot} was written by a newer platform-emu (state schema ${db.data.schemaVersion}; this one reads up to ${SCHEMA_VERSION}). ` +
            'Upgrade platform-emu or use another --data directory.',
        );
      }
      store.load(db.data);
      const size = await store.replay(join(dir, LOG), warn);
      if (!options.readOnly) {
        store.log = await MutationLog.open(join(dir, LOG), size, {
          afterFlush: (bytes) => store.maybeCompact(bytes),
          lost: (undos) => store.revert(undos),
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
    return this.seq;
  }

  /** Why the last write to disk failed, while no write has succeeded since (the emulator reports itself failing). */
  get failure(): string | undefined {
    return this.log?.failure?.message;
  }

  isEmpty(): boolean {
    for (const records of this.collections.values()) if (records.size > 0) return false;
    return true;
  }

  get<T = StoredRecord>(collection: string, id: string): T | undefined {
    return this.collections.get(collection)?.get(id)?.value as T | undefined;
  }

  has(collection: string, id: string): boolean {
    return this.collections.get(collection)?.has(id) ?? false;
  }

  /** The revision of one record (for its ETag), or of the whole collection when `id` is absent. */
  rev(collection: string, id?: string): number {
    if (id === undefined) return this.collectionRevs.get(collection) ?? 0;
    return this.collections.get(collection)?.get(id)?.rev ?? 0;
  }

  *values<T = StoredRecord>(collection: string): IterableIterator<T> {
    const records = this.collections.get(collection);
    if (!records) return;
    for (const entry of records.values()) yield entry.value as T;
  }

  count(collection: string): number {
    return this.collections.get(collection)?.size ?? 0;
  }

  /** The next integer id of a counter (never reused, also across restarts). */
  nextId(counter: string): number {
    const next = (this.counters.get(counter) ?? 0) + 1;
    this.counters.set(counter, next);
    this.advancedCounters.set(counter, next);
    return next;
  }

  /** A secondary index kept up to date on every commit; `lookup` answers it without a scan. */
  defineIndex(collection: string, name: string, key: IndexKey): void {
    const index: Index = { key, ids: new Map() };
    let byName = this.indexes.get(collection);
    if (!byName) this.indexes.set(collection, (byName = new Map()));
    byName.set(name, index);
    for (const [id, entry] of this.collections.get(collection) ?? []) indexAdd(index, id, entry.value);
  }

  lookup<T = StoredRecord>(collection: string, indexName: string, key: string): T[] {
    const index = this.indexes.get(collection)?.get(indexName);
    if (!index) throw new Error(`No index ${indexName} on ${collection}`);
    const ids = index.ids.get(key);
    if (!ids) return [];
    const records = this.collections.get(collection)!;
    return [...ids].map((id) => records.get(id)!.value as T);
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
    return this.series.get(collection, id);
  }

  /**
   * All or nothing: checks the mutations and serializes their log line first (a StoreValueError changes
   * nothing), then applies them in memory at once (all of them, in order) and resolves once they are on disk.
   * If the line cannot be written, the change is undone in memory and the promise rejects with a StoreWriteError.
   */
  commit(mutations: Mutation[]): Promise<void> {
    if (this.options.readOnly) return Promise.reject(new Error('This store was opened read-only.'));
    if (this.closed) return Promise.reject(new Error('The store is closed: the emulator is stopping.'));
    const line: LogLine = { s: this.seq + 1, m: mutations };
    if (this.advancedCounters.size > 0) line.c = Object.fromEntries(this.advancedCounters);
    let text = '';
    try {
      for (const m of mutations) checkMutation(m);
      if (this.log) text = JSON.stringify(line) + '\n';
    } catch (err) {
      return Promise.reject(err instanceof StoreValueError ? err : new StoreValueError(`The change cannot be stored: ${(err as Error).message}.`));
    }
    this.advancedCounters.clear();
    if (!this.log) {
      this.apply(line);
      return Promise.resolve();
    }
    const undo: Undo = { seq: this.seq, counters: line.c, changes: [] };
    this.apply(line, undo);
    const written = this.log.append(text, undo);
    // Series changes cannot be undone cheaply (an item may replace one of equal time): they reach memory once written.
    if (!line.m.some(changesSeries)) return written;
    return written.then(() => this.applySeries(line.m));
  }

  /** The whole state as one document (a copy a caller may keep). */
  exportDocument(): StateDocument {
    const collections: StateDocument['collections'] = {};
    for (const [name, records] of this.collections) {
      if (records.size === 0) continue;
      const out: Record<string, StoredRecord> = {};
      for (const [id, entry] of records) setOwn(out, id, entry.value);
      setOwn(collections, name, out);
    }
    const document: StateDocument = { schemaVersion: SCHEMA_VERSION, seq: this.seq, counters: Object.fromEntries(this.counters), collections };
    const series = this.series.export();
    if (series) document.series = series;
    return document;
  }

  /**
   * Replaces the whole state (import, reset) and makes it durable as a new snapshot. The document is checked
   * whole first (a StoreValueError naming the place changes nothing).
   */
  async replace(document: StateDocument): Promise<void> {
    try {
      checkDocument(document);
      if (document.series !== undefined) checkSeriesDocument(document.series, 'the imported document');
    } catch (err) {
      if (err instanceof StoreValueError || err instanceof StoreError) throw new StoreValueError(`The imported document: ${err.message}`);
      throw err;
    }
    const apply = async () => {
      const indexes = [...this.allIndexes()];
      const before = {
        collections: this.collections,
        collectionRevs: this.collectionRevs,
        counters: this.counters,
        advancedCounters: this.advancedCounters,
        seq: this.seq,
        indexIds: indexes.map((index) => index.ids),
      };
      this.collections = new Map();
      this.collectionRevs = new Map();
      this.counters = new Map();
      this.advancedCounters = new Map();
      const seriesBefore = this.series;
      this.series = new SeriesCollections();
      for (const index of indexes) index.ids = new Map();
      this.load({ ...document, seq: before.seq + 1 });
      try {
        await this.writeSnapshot();
      } catch (err) {
        // The disk keeps the old state, so memory does too; changes made on the new state meanwhile are undone first.
        const failed = new StoreWriteError(`The new state could not be written to disk (${(err as Error).message}); the state is as it was.`);
        this.log?.abandonQueued(failed);
        ({ collections: this.collections, collectionRevs: this.collectionRevs, counters: this.counters, advancedCounters: this.advancedCounters, seq: this.seq } = before);
        this.series = seriesBefore;
        indexes.forEach((index, i) => (index.ids = before.indexIds[i]));
        throw failed;
      }
    };
    if (this.log) await this.log.exclusive(apply);
    else await apply();
  }

  /** Writes the snapshot, empties the log and releases the lock. */
  async close(): Promise<void> {
    this.closed = true;
    try {
      if (this.log) {
        const log = this.log;
        try {
          await log.exclusive(() => this.writeSnapshot());
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
  private async replay(path: string, warn: (message: string) => void): Promise<number> {
    const { lines, lineNumbers, size } = await readLog(path, warn, !this.options.readOnly);
    const snapshotSeq = this.seq;
    lines.forEach((line, i) => {
      if (line.s <= snapshotSeq && this.seq === snapshotSeq) return;
      if (line.s !== this.seq + 1) {
        throw new StoreError(
          `${path} line ${lineNumbers[i]} holds mutation ${line.s} where mutation ${this.seq + 1} was expected ` +
            `(${SNAPSHOT} ends at mutation ${snapshotSeq}): the log does not belong to this snapshot or lost lines. ` +
            'The emulator did not touch either file; restore them, or move them away to start empty.',
        );
      }
      this.apply(line);
    });
    return size;
  }

  /** Loads a document `checkDocument` accepted. */
  private load(document: StateDocument): void {
    this.seq = document.seq ?? 0;
    for (const [name, value] of Object.entries(document.counters ?? {})) this.counters.set(name, value);
    for (const [name, records] of Object.entries(document.collections)) {
      const map = this.collection(name);
      for (const [id, value] of Object.entries(records)) {
        map.set(id, { value: Object.freeze(value), rev: this.seq });
        this.bumpCounter(name, id);
        for (const index of this.indexesOf(name)) indexAdd(index, id, value);
      }
      this.collectionRevs.set(name, this.seq);
    }
    this.series.load(document.series, SNAPSHOT);
  }

  /**
   * Applies a checked line; with `undo`, records what it replaced, and leaves its series changes to
   * `applySeries` once the line is written.
   */
  private apply(line: LogLine, undo?: Undo): void {
    this.seq = line.s;
    for (const [name, value] of Object.entries(line.c ?? {})) {
      if (value > (this.counters.get(name) ?? 0)) this.counters.set(name, value);
    }
    if (!undo) this.applySeries(line.m);
    for (const m of line.m) {
      if (m.op === 'append') {
        this.collectionRevs.set(m.c, line.s);
        continue;
      }
      const records = this.collection(m.c);
      const previous = records.get(m.id);
      undo?.changes.push({ c: m.c, id: m.id, previous, collectionRev: this.collectionRevs.get(m.c) });
      if (previous) for (const index of this.indexesOf(m.c)) indexRemove(index, m.id, previous.value);
      if (m.op === 'put') {
        const value = Object.freeze(m.v);
        records.set(m.id, { value, rev: line.s });
        this.bumpCounter(m.c, m.id);
        for (const index of this.indexesOf(m.c)) indexAdd(index, m.id, value);
      } else {
        records.delete(m.id);
      }
      this.collectionRevs.set(m.c, line.s);
    }
  }

  private applySeries(mutations: readonly Mutation[]): void {
    for (const m of mutations) if (m.op === 'append') this.series.append(m.c, m.id, m.v);
  }

  /**
   * Undoes commits whose log lines never reached the disk, newest first, so that memory holds what the disk
   * holds. Counters stay advanced (an id handed out is never handed out again) and go with the next line.
   */
  private revert(undos: Undo[]): void {
    for (let u = undos.length - 1; u >= 0; u--) {
      const undo = undos[u];
      for (let i = undo.changes.length - 1; i >= 0; i--) {
        const { c, id, previous, collectionRev } = undo.changes[i];
        const records = this.collection(c);
        const current = records.get(id);
        if (current) for (const index of this.indexesOf(c)) indexRemove(index, id, current.value);
        if (previous) {
          records.set(id, previous);
          for (const index of this.indexesOf(c)) indexAdd(index, id, previous.value);
        } else {
          records.delete(id);
        }
        if (collectionRev === undefined) this.collectionRevs.delete(c);
        else this.collectionRevs.set(c, collectionRev);
      }
      this.seq = undo.seq;
      for (const [name, value] of Object.entries(undo.counters ?? {})) {
        if (value > (this.advancedCounters.get(name) ?? 0)) this.advancedCounters.set(name, value);
      }
    }
  }

  /** The state the disk holds: memory without the commits whose lines are not written yet. */
  private durableDocument(): StateDocument {
    const document = this.exportDocument();
    const unwritten = this.log?.unwritten ?? [];
    for (let u = unwritten.length - 1; u >= 0; u--) {
      const undo = unwritten[u];
      for (let i = undo.changes.length - 1; i >= 0; i--) {
        const { c, id, previous } = undo.changes[i];
        if (!Object.hasOwn(document.collections, c)) setOwn(document.collections, c, {});
        const records = document.collections[c];
        if (previous) setOwn(records, id, previous.value);
        else delete records[id];
      }
      document.seq = undo.seq;
    }
    return document;
  }

  private bumpCounter(collection: string, id: string): void {
    const n = Number(id);
    if (Number.isSafeInteger(n) && n > (this.counters.get(collection) ?? 0)) this.counters.set(collection, n);
  }

  private collection(name: string): Map<string, Entry> {
    let records = this.collections.get(name);
    if (!records) this.collections.set(name, (records = new Map()));
    return records;
  }

  private indexesOf(collection: string): Iterable<Index> {
    return this.indexes.get(collection)?.values() ?? [];
  }

  private *allIndexes(): Iterable<Index> {
    for (const byName of this.indexes.values()) yield* byName.values();
  }

  /** Runs inside the log's flush loop, so no append interleaves with the snapshot. */
  private async maybeCompact(logBytes: number): Promise<void> {
    if (this.compacting || logBytes < (this.options.compactBytes ?? 16 * 1024 * 1024)) return;
    this.compacting = true;
    try {
      await this.writeSnapshot();
    } catch (err) {
      // The log still holds everything; the next flush tries again.
      this.options.warn?.(`Could not rewrite ${SNAPSHOT} (${(err as Error).message}); the mutation log keeps growing until it can.`);
    } finally {
      this.compacting = false;
    }
  }

  private async writeSnapshot(): Promise<void> {
    if (this.options.inMemory || this.options.readOnly) return;
    // Never what the log has not taken: a line still queued may yet fail, and its change be undone.
    this.db.data = this.durableDocument();
    try {
      await this.db.write();
    } finally {
      this.db.data = emptyDocument();
    }
    // The snapshot holds everything now; a log that cannot be emptied only has lines the next start skips.
    await this.log?.truncate().catch((err: Error) => this.options.warn?.(`Could not empty ${LOG} after writing ${SNAPSHOT} (${err.message}); its lines are skipped on the next start.`));
  }
}
