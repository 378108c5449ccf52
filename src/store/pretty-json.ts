import { isPlainObject } from './json-values.js';

/** Objects this close to the top (the document, its collections, each collection) are written key by key. */
const EXPANDED_DEPTH = 3;
/** Arrays longer than this (a series' times and values) are written this many items at a time. */
const ARRAY_SLICE = 4096;

/** Whether an object is written key by key: near the top, or holding a long array (a series' `{ t, v }`). */
function expands(value: Record<string, unknown>, depth: number): boolean {
  if (depth < EXPANDED_DEPTH) return true;
  for (const key in value) {
    const item = value[key];
    if (Array.isArray(item) && item.length > ARRAY_SLICE) return true;
  }
  return false;
}

/** `JSON.stringify(value, null, 1)` of a value nested `depth` levels deep: its lines indented by `depth` more. */
function nested(value: unknown, depth: number): string {
  const text = JSON.stringify(value, null, 1);
  return depth === 0 ? text : text.replaceAll('\n', `\n${' '.repeat(depth)}`);
}

/**
 * The text of `JSON.stringify(value, null, 1)`, in pieces: the snapshot of a large state (a million points, tens of
 * megabytes) is written a piece at a time, so that requests are answered between the pieces rather than after the
 * whole text. The top levels go key by key (a record is one piece) and long arrays a slice at a time.
 * Values are JSON (the store checked them): no `undefined`, functions or `toJSON`.
 */
export function* prettyJsonPieces(value: unknown, depth = 0): Generator<string> {
  const inner = ' '.repeat(depth + 1);
  if (Array.isArray(value) && value.length > ARRAY_SLICE) {
    for (let i = 0; i < value.length; i += ARRAY_SLICE) {
      // `[\n <items>\n]`: the items, without the brackets.
      const slice = nested(value.slice(i, i + ARRAY_SLICE), depth);
      yield (i === 0 ? '[\n' : ',\n') + slice.slice(2, slice.length - depth - 2);
    }
    yield `\n${' '.repeat(depth)}]`;
    return;
  }
  if (!isPlainObject(value) || !expands(value, depth)) {
    yield nested(value, depth);
    return;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) {
    yield '{}';
    return;
  }
  for (let i = 0; i < keys.length; i++) {
    yield `${i === 0 ? '{\n' : ',\n'}${inner}${JSON.stringify(keys[i])}: `;
    yield* prettyJsonPieces(value[keys[i]], depth + 1);
  }
  yield `\n${' '.repeat(depth)}}`;
}
