import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Collections asked of V8 where its own timing costs memory: while payloads stream, and once a large state is loaded.

/**
 * node:http hands every body chunk (64 KiB) over in a buffer of its own, garbage once written to the file. V8 frees
 * such buffers only at a young-generation collection, and starts one for their sake only once 32 MB of them are
 * outstanding: the process grows by that much, and each new buffer lands on fresh pages (page faults, most of an
 * upload's CPU). Asking for a scavenge every 8 MiB of streamed payload keeps the growth near 10 MB and the memory
 * reused (`npm run bench`, figure 8; docs/performance.md). A scavenge of the emulator's young generation costs a
 * millisecond or two.
 */
const SCAVENGE_EVERY = 8 * 1024 * 1024;

/**
 * What a start read from disk (snapshot and log) past which it collects its garbage once it has loaded the state. The
 * text read and the garbage of parsing it are as large as the files and more; V8 sets the old generation's next limit
 * at a collection that falls while they are alive, so an emulator that then idles kept them: 235-305 MB at ready
 * for a snapshot of 59 MB, 170 MB after one full collection of 30-50 ms (figures 5a and 1b).
 */
const LARGE_LOAD = 16 * 1024 * 1024;

type Collect = (options?: { type: 'minor' }) => void;
let collect: Collect | null | undefined;
let sinceScavenge = 0;

/**
 * V8's `gc`, without exposing it to the process's own global: taken from a context made while `--expose-gc` is on,
 * the flag then set back (a process started with `--expose-gc` has it on its global already). Null where it cannot
 * be had; everything then works as before, only with V8's own timing.
 */
function collector(): Collect | null {
  if (collect !== undefined) return collect;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return (collect = exposed as Collect);
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    collect = typeof gc === 'function' ? (gc as Collect) : null;
  } catch {
    collect = null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/** Counts streamed payload bytes (every stream in the process together); every 8 MiB, asks for a scavenge. */
export function streamedBytes(bytes: number): void {
  sinceScavenge += bytes;
  if (sinceScavenge < SCAVENGE_EVERY) return;
  sinceScavenge = 0;
  collector()?.({ type: 'minor' });
}

/** After a start loaded a state from `bytes` of files: one full collection when that was large (`LARGE_LOAD`). */
export function loadedBytes(bytes: number): void {
  if (bytes >= LARGE_LOAD) collector()?.();
}
