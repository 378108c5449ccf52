// Waits with a bound, for the parts of a run that may never end on a machine that does not carry the load.

/** `work()`, or an error with `message()` (asked then) once `ms` have passed without its end. */
export async function within(ms, message, work) {
  let timer;
  try {
    return await Promise.race([
      work(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(message())), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `promise` settles within `ms` (it goes on either way). */
export async function settlesWithin(promise, ms) {
  let timer;
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
