import { JsonDepthError } from './errors.js';

/**
 * The deepest nesting of objects and arrays a stored value may have (a top-level object is depth 1).
 * Far beyond any real record, and far below the depth at which `JSON.stringify` overflows the stack.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Throws a JsonDepthError naming `what` and the limit when `value` nests objects and arrays deeper than
 * `limit`. Iterative (no recursion to overflow), allocation-light (it runs on every commit and on every
 * record a start loads), and it stops at the first level past the limit; a cycle counts as too deep.
 */
export function checkJsonDepth(value: unknown, what: string | (() => string), limit = MAX_JSON_DEPTH): void {
  if (typeof value !== 'object' || value === null) return;
  const values: object[] = [value];
  const depths: number[] = [1];
  let size = 1;
  while (size > 0) {
    size--;
    const current = values[size] as Record<string, unknown>;
    const depth = depths[size];
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        const child: unknown = current[i];
        if (typeof child !== 'object' || child === null) continue;
        if (depth >= limit) throw tooDeep(what, limit);
        values[size] = child;
        depths[size++] = depth + 1;
      }
    } else {
      for (const key in current) {
        const child = current[key];
        if (typeof child !== 'object' || child === null) continue;
        if (depth >= limit) throw tooDeep(what, limit);
        values[size] = child;
        depths[size++] = depth + 1;
      }
    }
  }
}

function tooDeep(what: string | (() => string), limit: number): JsonDepthError {
  const name = typeof what === 'string' ? what : what();
  return new JsonDepthError(
    `${name} is nested more than ${limit} levels deep (objects and arrays); the limit is ${limit}.`,
    limit,
  );
}
