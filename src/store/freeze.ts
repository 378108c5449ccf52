/**
 * Every value the store holds is frozen: no code may change a stored record in place, since readers share it and a
 * compaction writes the snapshot from the records themselves, in pieces, while requests are served (docs/state.md,
 * Compaction). The top level always; every level with `PLATFORM_EMU_DEEP_FREEZE=1`, as the test suite runs, so that
 * code changing a nested value in place fails there (on every commit it would cost too much to be the default).
 */
const DEEP = process.env.PLATFORM_EMU_DEEP_FREEZE === '1';

export function freezeStored<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  // Stored values passed the depth limit (json-limits.ts), so this recursion is bounded.
  if (DEEP) for (const key of Object.keys(value)) freezeStored((value as Record<string, unknown>)[key]);
  return value;
}
