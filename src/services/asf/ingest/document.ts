import { checkCollectionSize, stepper, type Budget } from '../painless/budget.js';
import { ScriptRuntimeError } from '../painless/errors.js';
import { fromJson, toJson } from '../painless/json.js';
import { isList, isMap, javaType, valuesEqual, type Value, type ValueList, type ValueMap } from '../painless/values.js';
import { ingestFailure, IngestError } from './errors.js';
import type { SimulatedDocInput } from '../schemas.js';

/** Metadata fields that live beside the source fields in `ctx`, as in the search engine. */
export const METADATA_FIELDS = ['_index', '_type', '_id', '_routing'] as const;

/** A document of a simulation request. */
export type { SimulatedDocInput };

type Container = ValueMap | ValueList;

/**
 * One document going through a pipeline: `ctx` holds the source fields and the metadata (`_index`, `_id`, ...),
 * `ingest` the ingest metadata (`_ingest.timestamp`). Field paths (`a.b.0.c`) reach into both, with the
 * search engine's rules and messages; `_source.` and `_ingest.` prefixes pick the part explicitly.
 */
export class IngestDocument {
  constructor(
    readonly ctx: ValueMap,
    readonly ingest: ValueMap,
  ) {}

  static from(input: SimulatedDocInput, timestamp: string): IngestDocument {
    const ctx = fromJson(input._source) as ValueMap;
    const clash = METADATA_FIELDS.find((field) => ctx.has(field));
    if (clash) throw ingestFailure(`_source must not contain the metadata field [${clash}]; give it beside _source`);
    ctx.set('_index', input._index ?? '_index');
    ctx.set('_id', input._id ?? '_id');
    if (input._type !== undefined) ctx.set('_type', input._type);
    if (input._routing !== undefined) ctx.set('_routing', input._routing);
    return new IngestDocument(ctx, new Map([['timestamp', timestamp]]));
  }

  /** The answer of a simulation for this document. */
  toResponse() {
    try {
      return this.response();
    } catch (err) {
      if (err instanceof ScriptRuntimeError) throw ingestFailure(err.message);
      throw err;
    }
  }

  private response() {
    const meta = (field: string) => this.ctx.get(field) ?? null;
    for (const field of METADATA_FIELDS) {
      const value = meta(field);
      const required = field === '_index' || field === '_id';
      if (typeof value !== 'string' && (required || value !== null))
        throw ingestFailure(`${field} must be a string; the pipeline left it ${javaType(value)}`);
    }
    const source: ValueMap = new Map(
      [...this.ctx].filter(([k]) => !(METADATA_FIELDS as readonly string[]).includes(k)),
    );
    return {
      _index: meta('_index') as string,
      _type: (meta('_type') as string | null) ?? '_doc',
      _id: meta('_id') as string,
      ...(meta('_routing') !== null ? { _routing: meta('_routing') as string } : {}),
      _source: toJson(source),
      _ingest: toJson(this.ingest),
    };
  }

  private start(path: string): { root: ValueMap; keys: string[] } {
    if (path === '') throw ingestFailure('path cannot be null nor empty');
    const keys = path.split('.');
    if (keys.some((k) => k === '')) throw ingestFailure(`path [${path}] is not valid`);
    if (keys[0] === '_ingest') return { root: this.ingest, keys: keys.slice(1) };
    if (keys[0] === '_source') return { root: this.ctx, keys: keys.slice(1) };
    return { root: this.ctx, keys };
  }

  /** The value at a path, or `undefined` when the last key is absent; an impossible path throws. */
  private lookup(path: string, missingIsError: boolean): Value | undefined {
    const { root, keys } = this.start(path);
    let current: Value = root;
    for (const key of keys) {
      if (isMap(current)) {
        if (!current.has(key)) {
          if (missingIsError) throw ingestFailure(`field [${key}] not present as part of path [${path}]`);
          return undefined;
        }
        current = current.get(key)!;
      } else if (isList(current)) {
        const index = listIndex(key, path);
        if (index >= current.length) {
          if (missingIsError)
            throw ingestFailure(
              `[${key}] is out of bounds for array with length [${current.length}] as part of path [${path}]`,
            );
          return undefined;
        }
        current = current[index];
      } else if (current === null) {
        if (missingIsError) throw ingestFailure(`cannot resolve [${key}] from null as part of path [${path}]`);
        return undefined;
      } else {
        if (missingIsError)
          throw ingestFailure(
            `cannot resolve [${key}] from object of type [${javaType(current)}] as part of path [${path}]`,
          );
        return undefined;
      }
    }
    return current;
  }

  get(path: string): Value {
    return this.lookup(path, true) as Value;
  }

  /** With `ignoreMissing`, null for an absent field (the processors' `ignore_missing`). */
  getOptional(path: string, ignoreMissing: boolean): Value {
    return ignoreMissing ? (this.lookup(path, false) ?? null) : this.get(path);
  }

  has(path: string): boolean {
    try {
      return this.lookup(path, false) !== undefined;
    } catch (err) {
      if (err instanceof IngestError) return false;
      throw err;
    }
  }

  /** The parent container of a path's last key, creating missing maps on the way (as the search engine does). */
  private parent(path: string): { parent: Container; key: string } {
    const { root, keys } = this.start(path);
    if (keys.length === 0) throw ingestFailure(`cannot set the whole [${path}]`);
    let current: Value = root;
    for (const key of keys.slice(0, -1)) {
      if (isMap(current)) {
        if (!current.has(key)) current.set(key, new Map());
        current = current.get(key)!;
      } else if (isList(current)) {
        const index = listIndex(key, path);
        if (index >= current.length)
          throw ingestFailure(
            `[${key}] is out of bounds for array with length [${current.length}] as part of path [${path}]`,
          );
        current = current[index];
      } else if (current === null) {
        throw ingestFailure(`cannot set [${key}] with null parent as part of path [${path}]`);
      } else {
        throw ingestFailure(
          `cannot set [${key}] with parent object of type [${javaType(current)}] as part of path [${path}]`,
        );
      }
    }
    const key = keys.at(-1)!;
    if (current === null) throw ingestFailure(`cannot set [${key}] with null parent as part of path [${path}]`);
    if (!isMap(current) && !isList(current))
      throw ingestFailure(
        `cannot set [${key}] with parent object of type [${javaType(current)}] as part of path [${path}]`,
      );
    return { parent: current, key };
  }

  set(path: string, value: Value): void {
    const { parent, key } = this.parent(path);
    if (isMap(parent)) {
      parent.set(key, value);
      return;
    }
    const index = listIndex(key, path);
    if (index >= parent.length)
      throw ingestFailure(
        `[${key}] is out of bounds for array with length [${parent.length}] as part of path [${path}]`,
      );
    parent[index] = value;
  }

  /**
   * The `append` processor: an absent field becomes a list of the values; a scalar becomes a list first. Without
   * duplicates, a field to which nothing new was added stays as it was.
   */
  append(path: string, values: Value[], allowDuplicates: boolean, budget: Budget): void {
    const { parent, key } = this.parent(path);
    const index = isList(parent) ? listIndex(key, path) : -1;
    if (isList(parent) && index >= parent.length)
      throw ingestFailure(
        `[${key}] is out of bounds for array with length [${parent.length}] as part of path [${path}]`,
      );
    const store = (v: Value) => (isMap(parent) ? parent.set(key, v) : (parent[index] = v));
    if (isMap(parent) && !parent.has(key)) {
      const list: ValueList = [];
      addValues(list, values, allowDuplicates, budget);
      store(list);
      return;
    }
    const existing = isMap(parent) ? parent.get(key)! : parent[index];
    const list = isList(existing) ? existing : [existing];
    if (addValues(list, values, allowDuplicates, budget)) store(list);
  }

  remove(path: string): void {
    const { root, keys } = this.start(path);
    if (keys.length === 0) throw ingestFailure(`cannot remove the whole [${path}]`);
    this.get(path);
    const parentPath = keys.slice(0, -1);
    let parent: Value = root;
    for (const key of parentPath)
      parent = isMap(parent) ? parent.get(key)! : (parent as ValueList)[listIndex(key, path)];
    const key = keys.at(-1)!;
    if (isMap(parent)) parent.delete(key);
    else (parent as ValueList).splice(listIndex(key, path), 1);
  }

  /** What a template's `{{a.b}}` reads: undefined where the path leads nowhere. */
  templateValue(path: string): Value | undefined {
    if (path === '_ingest') return this.ingest;
    try {
      return this.lookup(path, false);
    } catch (err) {
      if (err instanceof IngestError) return undefined;
      throw err;
    }
  }
}

function listIndex(key: string, path: string): number {
  if (!/^\d+$/.test(key))
    throw ingestFailure(`[${key}] is not an integer, cannot be used as an index as part of path [${path}]`);
  return Number(key);
}

/**
 * Adds values to a list in place (without duplicates: only those not there yet); true when one was added. The
 * search for duplicates runs within the time budget, and the list within the size cap.
 */
function addValues(list: ValueList, values: Value[], allowDuplicates: boolean, budget: Budget): boolean {
  let added = false;
  const step = stepper(budget);
  for (const value of values) {
    if (allowDuplicates || !list.some((v) => valuesEqual(v, value, true, step))) {
      checkCollectionSize(list.length + 1);
      list.push(value);
      added = true;
    }
  }
  return added;
}
