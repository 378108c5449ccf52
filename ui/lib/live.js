/**
 * `const refresh = coalesce(load)`: one `load()` at a time; calls during a load cause exactly one more afterwards,
 * so that the last change is always shown and a burst of events costs two reads, not one per event. Never rejects.
 */
export function coalesce(load) {
  let loading = false;
  let again = false;
  return async () => {
    if (loading) return void (again = true);
    loading = true;
    try {
      do {
        again = false;
        await load().catch(() => undefined);
      } while (again);
    } finally {
      loading = false;
    }
  };
}

/** The reason shown beside what a user may not do or see: the scope (or the admin token) it needs. */
export const needs = (scope) =>
  scope === 'emulator:admin' ? "needs the emulator's admin token" : `needs the scope ${scope}`;
