import { StoreError } from './errors.js';
import { freezeStored } from './freeze.js';
import { isPlainObject, setOwn } from './json-values.js';

/** One item of an append-only series: its time (epoch milliseconds) and any JSON value. */
export type SeriesItem = [time: number, value: unknown];

/** A series as the snapshot keeps it: times and values side by side, plain JSON and compact. */
export interface SeriesDocument {
  t: number[];
  v: unknown[];
}

/** Every series of the state, by collection and id, as the snapshot keeps them. */
export type SeriesByCollection = Record<string, Record<string, SeriesDocument>>;

/**
 * Items kept sorted by time, one per time (a later item with an equal time replaces the earlier one).
 * Two flat arrays rather than an object per item: numbers stay unboxed (8 bytes each), so a million points
 * cost tens of megabytes. Appending in time order is a push; the last item and a range are found without a scan.
 */
export class Series {
  constructor(
    private readonly times: number[] = [],
    private readonly values: unknown[] = [],
  ) {}

  get length(): number {
    return this.times.length;
  }

  timeAt(index: number): number {
    return this.times[index];
  }

  valueAt(index: number): unknown {
    return this.values[index];
  }

  /** The first index whose time is at or after `time` (`length` when none is). */
  lowerBound(time: number): number {
    let low = 0;
    let high = this.times.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.times[mid] < time) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The first index whose time is after `time` (`length` when none is). */
  upperBound(time: number): number {
    let low = 0;
    let high = this.times.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.times[mid] <= time) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  insert(time: number, value: unknown): void {
    const count = this.times.length;
    if (count === 0 || time > this.times[count - 1]) {
      this.times.push(time);
      this.values.push(value);
      return;
    }
    const at = this.lowerBound(time);
    if (this.times[at] === time) {
      this.values[at] = value;
      return;
    }
    this.times.splice(at, 0, time);
    this.values.splice(at, 0, value);
  }

  toDocument(): SeriesDocument {
    return { t: this.times.slice(), v: this.values.slice() };
  }
}

export function isSeriesItem(item: unknown): item is SeriesItem {
  return Array.isArray(item) && item.length === 2 && Number.isFinite(item[0]);
}

function seriesFromDocument(document: SeriesDocument, where: string): Series {
  const { t, v } = (document ?? {}) as Partial<SeriesDocument>;
  if (!Array.isArray(t) || !Array.isArray(v) || t.length !== v.length) {
    throw new StoreError(`${where} must be { "t": [times], "v": [values] } with as many values as times.`);
  }
  for (let i = 0; i < t.length; i++) {
    if (!Number.isFinite(t[i]) || (i > 0 && t[i] <= t[i - 1])) {
      throw new StoreError(`${where}.t[${i}] must be a number (epoch milliseconds) after the one before it.`);
    }
  }
  return new Series(t.slice(), v.slice());
}

/** The series of the store: named collections of series, next to the collections of records. */
export class SeriesCollections {
  private byCollection = new Map<string, Map<string, Series>>();

  get(collection: string, id: string): Series | undefined {
    return this.byCollection.get(collection)?.get(id);
  }

  append(collection: string, id: string, items: readonly SeriesItem[]): void {
    let series = this.byCollection.get(collection);
    if (!series) this.byCollection.set(collection, (series = new Map()));
    let one = series.get(id);
    if (!one) series.set(id, (one = new Series()));
    for (const [time, value] of items) one.insert(time, freezeStored(value));
  }

  delete(collection: string, id: string): void {
    this.byCollection.get(collection)?.delete(id);
  }

  clear(): void {
    this.byCollection = new Map();
  }

  load(document: SeriesByCollection | undefined, source: string): void {
    for (const [collection, byId] of Object.entries(document ?? {})) {
      const series = new Map<string, Series>();
      for (const [id, one] of Object.entries(byId ?? {}))
        series.set(id, seriesFromDocument(one, `${source}: series.${collection}["${id}"]`));
      this.byCollection.set(collection, series);
    }
  }

  /** A copy of every non-empty series, or undefined when there is none (the document then has no `series`). */
  export(): SeriesByCollection | undefined {
    let out: SeriesByCollection | undefined;
    for (const [collection, series] of this.byCollection) {
      for (const [id, one] of series) {
        if (one.length === 0) continue;
        out ??= {};
        // Ids come from the data (an imported document may name a series `__proto__`): set as own properties.
        if (!Object.hasOwn(out, collection)) setOwn(out, collection, {});
        setOwn(out[collection], id, one.toDocument());
      }
    }
    return out;
  }
}

/** Checks the `series` of a document to import, naming the first problem. */
export function checkSeriesDocument(document: unknown, source: string): SeriesByCollection {
  if (!isPlainObject(document)) throw new StoreError(`${source}: series must be an object of collections.`);
  const check = new SeriesCollections();
  check.load(document as SeriesByCollection, source);
  return document as SeriesByCollection;
}
