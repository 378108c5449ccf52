import {
  changesSeries,
  SCHEMA_VERSION,
  type LogLine,
  type Mutation,
  type StateDocument,
  type StoredRecord,
} from './document.js';
import { freezeStored } from './freeze.js';
import { setOwn } from './json-values.js';
import { indexAdd, indexRemove, indexReplace, type Index, type IndexKey } from './indexes.js';
import { SeriesCollections, type Series } from './series.js';

interface Entry {
  value: StoredRecord;
  rev: number;
}

/** What one applied commit changed, so that it can be undone if its log line never reaches the disk. */
export interface Undo {
  /** The sequence number before the commit. */
  seq: number;
  counters: Record<string, number> | undefined;
  changes: Array<{ c: string; id: string; previous: Entry | undefined; collectionRev: number | undefined }>;
  /** The commit's series appends: they reach memory when its line is written (`applySeries`), not before. */
  series?: readonly Mutation[];
}

/**
 * The state in memory: collections of records with revisions and secondary indexes, counters and series.
 * It knows nothing of disks; the Store decides when a line is applied, and undoes it when the disk refuses it.
 */
export class MemoryState {
  private collections = new Map<string, Map<string, Entry>>();
  private collectionRevs = new Map<string, number>();
  private counters = new Map<string, number>();
  private indexes = new Map<string, Map<string, Index>>();
  private series = new SeriesCollections();
  seq = 0;
  /** Counters `nextId` advanced since the last commit; the next log line carries them. */
  advancedCounters = new Map<string, number>();

  /** An empty state with the same indexes (for a state that replaces this one). */
  emptyCopy(): MemoryState {
    const copy = new MemoryState();
    for (const [collection, byName] of this.indexes)
      for (const [name, index] of byName) copy.defineIndex(collection, name, index.key);
    return copy;
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

  nextId(counter: string): number {
    const next = (this.counters.get(counter) ?? 0) + 1;
    this.counters.set(counter, next);
    this.advancedCounters.set(counter, next);
    return next;
  }

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
    if (ids === undefined) return [];
    const records = this.collections.get(collection)!;
    if (typeof ids === 'string') return [records.get(ids)!.value as T];
    const values: T[] = [];
    for (const id of ids) values.push(records.get(id)!.value as T);
    return values;
  }

  getSeries(collection: string, id: string): Series | undefined {
    return this.series.get(collection, id);
  }

  countersNow(): Record<string, number> {
    return Object.fromEntries(this.counters);
  }

  exportDocument(): StateDocument {
    const collections: StateDocument['collections'] = {};
    for (const [name, records] of this.collections) {
      if (records.size === 0) continue;
      const out: Record<string, StoredRecord> = {};
      for (const [id, entry] of records) setOwn(out, id, entry.value);
      setOwn(collections, name, out);
    }
    const document: StateDocument = {
      schemaVersion: SCHEMA_VERSION,
      seq: this.seq,
      counters: this.countersNow(),
      collections,
    };
    const series = this.series.export();
    if (series) document.series = series;
    return document;
  }

  /** Loads a document `checkDocument` accepted; `source` names it in a series error. */
  load(document: StateDocument, source: string): void {
    this.seq = document.seq ?? 0;
    for (const [name, value] of Object.entries(document.counters ?? {})) this.counters.set(name, value);
    for (const [name, records] of Object.entries(document.collections)) {
      const map = this.collection(name);
      for (const [id, value] of Object.entries(records)) {
        map.set(id, { value: freezeStored(value), rev: this.seq });
        this.bumpCounter(name, id);
        for (const index of this.indexesOf(name)) indexAdd(index, id, value);
      }
      this.collectionRevs.set(name, this.seq);
    }
    this.series.load(document.series, source);
  }

  /**
   * Applies a checked line; with `undo`, records what it replaced, and leaves its series changes to
   * `applySeries` once the line is written (an appended item may replace one of equal time: not cheap to undo).
   */
  apply(line: LogLine, undo?: Undo): void {
    this.seq = line.s;
    for (const [name, value] of Object.entries(line.c ?? {})) {
      if (value > (this.counters.get(name) ?? 0)) this.counters.set(name, value);
    }
    if (!undo) this.applySeries(line.m);
    for (const m of line.m) {
      if (changesSeries(m)) {
        this.collectionRevs.set(m.c, line.s);
        continue;
      }
      const records = this.collection(m.c);
      const previous = records.get(m.id);
      undo?.changes.push({ c: m.c, id: m.id, previous, collectionRev: this.collectionRevs.get(m.c) });
      if (m.op === 'put') {
        const value = freezeStored(m.v);
        records.set(m.id, { value, rev: line.s });
        this.bumpCounter(m.c, m.id);
        for (const index of this.indexesOf(m.c)) {
          if (previous) indexReplace(index, m.id, previous.value, value);
          else indexAdd(index, m.id, value);
        }
      } else {
        if (previous) for (const index of this.indexesOf(m.c)) indexRemove(index, m.id, previous.value);
        records.delete(m.id);
      }
      this.collectionRevs.set(m.c, line.s);
    }
  }

  applySeries(mutations: readonly Mutation[]): void {
    for (const m of mutations) {
      if (m.op === 'append') this.series.append(m.c, m.id, m.v);
      else if (m.op === 'appends') for (const [id, items] of m.v) this.series.append(m.c, id, items);
    }
  }

  /**
   * Undoes commits whose log lines never reached the disk, newest first, so that memory holds what the disk
   * holds. Counters stay advanced (an id handed out is never handed out again) and go with the next line.
   */
  revert(undos: readonly Undo[]): void {
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

  /** The state the disk holds: this state without the commits whose lines are not written yet. */
  durableDocument(unwritten: readonly Undo[]): StateDocument {
    const document = this.exportDocument();
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
}
