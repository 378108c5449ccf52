import type { StoredRecord } from './document.js';

export type IndexKey = (value: StoredRecord) => string | undefined;

/** A secondary index of one collection: the ids of the records by the key `key` gives them (none for undefined). */
export interface Index {
  key: IndexKey;
  ids: Map<string, Set<string>>;
}

export function indexAdd(index: Index, id: string, value: StoredRecord): void {
  const key = index.key(value);
  if (key === undefined) return;
  let ids = index.ids.get(key);
  if (!ids) index.ids.set(key, (ids = new Set()));
  ids.add(id);
}

export function indexRemove(index: Index, id: string, value: StoredRecord): void {
  const key = index.key(value);
  if (key === undefined) return;
  const ids = index.ids.get(key);
  ids?.delete(id);
  if (ids?.size === 0) index.ids.delete(key);
}

/** A record replaced by another: its index entry moves only when the key changed (most updates keep it). */
export function indexReplace(index: Index, id: string, previous: StoredRecord, value: StoredRecord): void {
  if (index.key(previous) === index.key(value)) return;
  indexRemove(index, id, previous);
  indexAdd(index, id, value);
}
