/**
 * The size of a JSON value as `JSON.stringify` would write it (close enough: strings count their characters and
 * quotes, not escapes), counted only up to `limit`: past it the walk stops and answers Infinity, so that measuring
 * a huge value costs no more than measuring one of the limit's size.
 */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === undefined) continue;
    if (typeof v === 'string') size += v.length + 2;
    else if (v === null || typeof v !== 'object') size += String(v).length;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (const item of v) stack.push(item);
    } else {
      size += 2;
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        size += key.length + 4;
        if (size > limit) return Infinity;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
    if (size > limit) return Infinity;
  }
  return size;
}
