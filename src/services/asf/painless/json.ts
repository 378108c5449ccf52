import { illegalArgument } from './errors.js';
import { isList, isMap, isNum, numberFromJson, shortestFloat, type Value, type ValueMap } from './values.js';

/** A copy of a JSON value as script values (a document's `_source`, a processor's `params` or `value`). */
export function fromJson(value: unknown): Value {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return numberFromJson(value);
  if (Array.isArray(value)) return value.map(fromJson);
  const map: ValueMap = new Map();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) map.set(k, fromJson(v));
  return map;
}

/**
 * Script values as JSON. A map becomes an object through `Object.fromEntries`, which defines keys such as
 * `__proto__` as plain fields. A value that contains itself (`ctx.a = ctx`) cannot be written and is an error,
 * as is a number JSON has no form for (NaN, Infinity).
 */
export function toJson(value: Value, path: Set<unknown> = new Set()): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (isNum(value)) {
    if (!Number.isFinite(value.value)) throw illegalArgument(`the number ${value.value} has no JSON form`);
    return value.type === 'float' ? shortestFloat(value.value) : value.value;
  }
  if (path.has(value))
    throw illegalArgument(
      'the document contains itself (a field was set to one of its own parents) and cannot be written',
    );
  path.add(value);
  const json = isMap(value)
    ? Object.fromEntries([...value].map(([k, v]) => [k, toJson(v, path)]))
    : isList(value)
      ? value.map((v) => toJson(v, path))
      : undefined;
  path.delete(value);
  return json;
}
