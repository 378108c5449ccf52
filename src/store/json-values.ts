/**
 * A JSON object: not null, not an array. The one test of it in the code (test/one-way.test.ts holds the rest to it).
 */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An empty object for keys that come from user data (ids, names) that is answered as JSON: it has no prototype, so
 * `__proto__`, `constructor` and `toString` are keys like any other. Lookups that are not answered use a Map.
 */
export const userKeyed = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** Sets an own property even for the key `__proto__` (which plain assignment would take as the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
