/**
 * A JSON object: not null, not an array. The one test of it in the code (test/one-way.test.ts holds the rest to it).
 */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
