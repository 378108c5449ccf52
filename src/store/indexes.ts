import type { StoredRecord } from './document.js';

export type IndexKey = (value: StoredRecord) => string | undefined;

/**
 * A secondary index of one collection: the ids of the records by the key `key` gives them (none for undefined). A key
 * most records have alone (an endpoint's token, asked of every KP1 request) keeps the bare id, not a set of one.
 */
export interface Index {
  key: IndexKey;
  ids: Map<string, string | Set<string>>;
}

export function indexAdd(index: Index, id: string, value: StoredRecord): void {
  const key = index.key(value);
  if (key === undefined) return;
  const ids = index.ids.get(key);
  if (ids === undefined) index.ids.set(key, id);
  else if (typeof ids !== 'string') ids.add(id);
  else if (ids !== id) index.ids.set(key, new Set([ids, id]));
}

export function indexRemove(index: Index, id: string, value: StoredRecord): void {
  const key = index.key(value);
  if (key === undefined) return;
  const ids = index.ids.get(key);
  if (ids === id || (typeof ids !== 'string' && ids?.delete(id) && ids.size === 0)) index.ids.delete(key);
}

/** A record replaced by another: its index entry moves only when the key changed (most updates keep it). */
export function indexReplace(index: Index, id: string, previous: StoredRecord, value: StoredRecord): void {
  if (index.key(previous) === index.key(value)) return;
  indexRemove(index, id, previous);
  indexAdd(index, id, value);
}
