import { isSeriesItem } from './series.js';
import type { Mutation } from './document.js';
import { StoreValueError } from './errors.js';
import { checkJsonDepth, MAX_JSON_DEPTH } from './json-limits.js';
import { isPlainObject } from './json-values.js';

/*
 * What the store accepts, checked before anything changes: on every commit, on every replayed log line,
 * on the snapshot it starts from and on a document that replaces the state. Each check throws a
 * StoreValueError whose message names the place; the caller adds the file or the request.
 */

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return `${text.length > 60 ? `${text.slice(0, 60)}…` : text} (${typeof value})`;
}

/** Checks one record: its id a string other than `__proto__`, its value a JSON object within the nesting limit. */
export function checkRecord(collection: string, id: unknown, value: unknown): void {
  if (typeof id !== 'string')
    throw new StoreValueError(`The id of a record in ${collection} must be a string; got ${shown(id)}.`);
  // `__proto__` cannot be a key of a plain JSON object in JavaScript without special care; one such record would vanish
  // from exports.
  if (id === '__proto__') throw new StoreValueError(`"__proto__" cannot be the id of a record (in ${collection}).`);
  if (!isPlainObject(value))
    throw new StoreValueError(`The record ${collection}["${id}"] must be a JSON object; got ${shown(value)}.`);
  checkJsonDepth(value, () => `The record ${collection}["${id}"]`);
}

export function checkMutation(m: Mutation): void {
  if (!isPlainObject(m)) throw new StoreValueError(`A mutation must be an object; got ${shown(m)}.`);
  if (typeof m.c !== 'string' || m.c === '' || m.c === '__proto__')
    throw new StoreValueError(
      `The collection of a mutation must be a non-empty string other than "__proto__"; got ${shown(m.c)}.`,
    );
  if (m.op === 'put') checkRecord(m.c, m.id, m.v);
  else if (m.op === 'append') checkSeriesItems(m.c, m.id, m.v);
  else if (m.op === 'appends') checkSeriesAppends(m.c, m.v);
  else if (m.op !== 'del')
    throw new StoreValueError(
      `A mutation's op is "put", "del", "append" or "appends"; got ${shown((m as { op: unknown }).op)}.`,
    );
  else if (typeof m.id !== 'string')
    throw new StoreValueError(`The id of a record in ${m.c} must be a string; got ${shown(m.id)}.`);
}

/** Items appended to a series: `[time, value]` pairs, each value within the nesting limit. */
function checkSeriesItems(c: string, id: unknown, items: unknown): void {
  if (typeof id !== 'string' || id === '__proto__')
    throw new StoreValueError(`The id of a series in ${c} must be a string other than "__proto__"; got ${shown(id)}.`);
  if (!Array.isArray(items) || !items.every(isSeriesItem))
    throw new StoreValueError(`Items appended to series ${c}/${id} must be [time, value] pairs with a numeric time.`);
  checkJsonDepth(items, () => `an item of series ${c}/${id}`, MAX_JSON_DEPTH + 2);
}

/** An `appends` mutation's `v`: `[id, items]` pairs, each checked as an `append` of its own. */
function checkSeriesAppends(c: string, appends: unknown): void {
  if (!Array.isArray(appends))
    throw new StoreValueError(
      `The series appended to in ${c} must be a list of [id, items] pairs; got ${shown(appends)}.`,
    );
  for (const entry of appends) {
    if (!Array.isArray(entry) || entry.length !== 2)
      throw new StoreValueError(`Each series appended to in ${c} must be an [id, items] pair; got ${shown(entry)}.`);
    checkSeriesItems(c, entry[0], entry[1]);
  }
}

/** Counters (`nextId`) are non-negative integers. */
export function checkCounters(counters: unknown, where: string): void {
  if (!isPlainObject(counters))
    throw new StoreValueError(`${where} must be an object of counters by name; got ${shown(counters)}.`);
  for (const [name, value] of Object.entries(counters)) {
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw new StoreValueError(`${where}.${name} must be a non-negative integer; got ${shown(value)}.`);
    }
  }
}

/** A whole state document (the snapshot, or one that replaces the state): its shape and every record in it. */
export function checkDocument(document: unknown): void {
  if (!isPlainObject(document))
    throw new StoreValueError(
      `A state document is a JSON object with schemaVersion and collections; got ${shown(document)}.`,
    );
  const { schemaVersion, seq, counters, collections } = document;
  if (typeof schemaVersion !== 'number') throw new StoreValueError('A state document has a numeric "schemaVersion".');
  if (seq !== undefined && (!Number.isSafeInteger(seq) || (seq as number) < 0))
    throw new StoreValueError(`seq must be a non-negative integer; got ${shown(seq)}.`);
  if (counters !== undefined) checkCounters(counters, 'counters');
  if (!isPlainObject(collections))
    throw new StoreValueError(`collections must be an object of collections by name; got ${shown(collections)}.`);
  for (const [name, records] of Object.entries(collections)) {
    if (name === '__proto__') throw new StoreValueError('"__proto__" cannot be the name of a collection.');
    if (!isPlainObject(records))
      throw new StoreValueError(`collections.${name} must be an object of records by id; got ${shown(records)}.`);
    for (const [id, value] of Object.entries(records)) checkRecord(`collections.${name}`, id, value);
  }
}
