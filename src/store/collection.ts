import type { Mutation, SeriesAppend, StoredRecord } from './document.js';
import type { Series, SeriesItem } from './series.js';
import type { Store } from './store.js';

/** What a handle reaches its store through: a context (`ctx`) or anything else holding the store. */
export interface HasStore {
  readonly store: Store;
}

type IndexKeyOf<T> = (record: T) => string | undefined;

/**
 * A typed handle on one collection of records: a module-level constant (name and indexes), used with the context
 * of the call (`ENDPOINTS.get(ctx, id)`), so it costs one store call like `ctx.store.get` did. Writes succeed only
 * where a service descriptor declares the collection (`collections`); elsewhere the store refuses the first write.
 */
export class Collection<T extends object, I extends string = never> {
  private readonly indexes = new Map<string, IndexKeyOf<T>>();
  /** The stores this handle's indexes are defined in (an index is built on its first lookup, then kept up to date). */
  private readonly indexed = new WeakSet<Store>();

  constructor(readonly name: string) {}

  /** Declares a secondary index: `lookup(ctx, name, key)` answers the records whose `key(record)` is `key`. */
  index<N extends string>(name: N, key: IndexKeyOf<T>): Collection<T, I | N> {
    this.indexes.set(name, key);
    return this as Collection<T, I | N>;
  }

  get(ctx: HasStore, id: string): T | undefined {
    return ctx.store.get<T>(this.name, id);
  }

  has(ctx: HasStore, id: string): boolean {
    return ctx.store.has(this.name, id);
  }

  /** The revision of one record (for its ETag), or of the whole collection when `id` is absent. */
  rev(ctx: HasStore, id?: string): number {
    return ctx.store.rev(this.name, id);
  }

  values(ctx: HasStore): IterableIterator<T> {
    return ctx.store.values<T>(this.name);
  }

  count(ctx: HasStore): number {
    return ctx.store.count(this.name);
  }

  lookup(ctx: HasStore, index: I, key: string): T[] {
    const store = ctx.store;
    if (!this.indexed.has(store)) this.defineIndexes(store);
    return store.lookup<T>(this.name, index, key);
  }

  /** The next integer id of the counter named as the collection (never reused, also across restarts). */
  nextId(ctx: HasStore): number {
    return ctx.store.nextId(this.name);
  }

  put(ctx: HasStore, id: string, record: T): Promise<void> {
    return ctx.store.put(this.name, id, record as StoredRecord);
  }

  delete(ctx: HasStore, id: string): Promise<void> {
    return ctx.store.delete(this.name, id);
  }

  /** A put for `ctx.store.commit`, where several records change all or none. */
  putMutation(id: string, record: T): Mutation {
    return { op: 'put', c: this.name, id, v: record as StoredRecord };
  }

  deleteMutation(id: string): Mutation {
    return { op: 'del', c: this.name, id };
  }

  private defineIndexes(store: Store): void {
    for (const [name, key] of this.indexes)
      store.defineIndex(this.name, name, key as (value: StoredRecord) => string | undefined);
    this.indexed.add(store);
  }
}

/** A typed handle on a series collection (items kept sorted by time); declared by a descriptor's `series`. */
export class SeriesCollection {
  constructor(readonly name: string) {}

  get(ctx: HasStore, id: string): Series | undefined {
    return ctx.store.getSeries(this.name, id);
  }

  /** An append for `ctx.store.commit`: the log line holds only the new items. */
  appendMutation(id: string, items: SeriesItem[]): Mutation {
    return { op: 'append', c: this.name, id, v: items };
  }

  /** Appends to several series at once (`[id, items]` each), in one mutation: the collection is named once. */
  appendsMutation(appends: SeriesAppend[]): Mutation {
    return appends.length === 1
      ? this.appendMutation(appends[0][0], appends[0][1])
      : { op: 'appends', c: this.name, v: appends };
  }
}

/**
 * A handle on the records of collection `name`, typed to `T`: `collection<Endpoint>('endpoints').index('app', (e) =>
 * e.appName)`.
 */
export const collection = <T extends object>(name: string) => new Collection<T>(name);

export const seriesCollection = (name: string) => new SeriesCollection(name);
