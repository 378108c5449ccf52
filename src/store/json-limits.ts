import { JsonDepthError } from './errors.js';

/**
 * The deepest nesting of objects and arrays a stored value may have (a top-level object is depth 1).
 * Far beyond any real record, and far below the depth at which `JSON.stringify` overflows the stack.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Throws a JsonDepthError naming `what` and the limit when `value` nests objects and arrays deeper than
 * `limit`. Iterative (no recursion to overflow), and it stops at the first level past the limit; a cycle
 * counts as too deep.
 */
export function checkJsonDepth(value: unknown, what: string, limit = MAX_JSON_DEPTH): void {
  if (typeof value !== 'object' || value === null) return;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue;
      if (depth >= limit) {
        throw new JsonDepthError(`${what} is nested more than ${limit} levels deep (objects and arrays); the limit is ${limit}.`, limit);
      }
      values.push(child);
      depths.push(depth + 1);
    }
  }
}
