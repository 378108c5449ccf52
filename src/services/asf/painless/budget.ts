import { performance } from 'node:perf_hooks';
import { ScriptRuntimeError } from './errors.js';
import { isList, isMap, type Value } from './values.js';

/** What one simulation may spend, across all its documents, processors and scripts. */
export interface Budget {
  /**
   * `computingMs()` past which the run stops: the process's computing time, neither the emulator's (possibly
   * virtual) clock nor wall time, which a busy machine stretches without the simulation doing more.
   */
  deadline: number;
  /** `performance.now()` before which the deadline is not looked at again: reading the CPU time costs microseconds. */
  nextLook: number;
  /** Characters of strings and elements of maps and lists made so far. */
  allocated: number;
  /** The milliseconds the deadline allows (for the message at the bound). */
  timeMs: number;
}

export const LIMITS = {
  /** Loop iterations of one script run (the search engine's own `max_loop_counter` default). */
  loopIterations: 1_000_000,
  allocation: 4_000_000,
  stringLength: 1_000_000,
  /** Elements of one list or entries of one map. */
  collectionSize: 100_000,
  /** Milliseconds one simulation request may compute. */
  timeMs: 1000,
  /**
   * Milliseconds of an inline simulation (`POST /_ingest/pipeline/simulate/`) with `--auth on`, where it needs no
   * token.
   */
  openTimeMs: 100,
};

/** Wall milliseconds between two readings of the CPU time: a run stops at most this late. */
const LOOK_EVERY_MS = 5;

/** Milliseconds of CPU (user and system) the process has spent. */
function computingMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export const newBudget = (timeMs: number = LIMITS.timeMs): Budget => ({
  deadline: computingMs() + timeMs,
  nextLook: performance.now() + LOOK_EVERY_MS,
  allocated: 0,
  timeMs,
});

/**
 * A step of work that is not an allocation (comparing, scanning): every collection method, comparison and processor
 * loop calls it once per element it visits, and the time budget is looked at every 256 steps, so that no single
 * call (a `contains` over a million maps) runs past the deadline by more than a few hundred elements.
 */
export function stepper(budget: Budget): () => void {
  let steps = 0;
  return () => {
    if ((++steps & 255) === 0) checkTime(budget);
  };
}

/** Refuses a list or map that would grow past `LIMITS.collectionSize`. */
export function checkCollectionSize(size: number): void {
  if (size > LIMITS.collectionSize)
    throw limitError(`a list or map grew past ${LIMITS.collectionSize} elements, the emulator's limit`);
}

/** Refuses a string longer than `LIMITS.stringLength` (checked before it is built where its length is known first). */
export function checkStringLength(length: number): void {
  if (length > LIMITS.stringLength)
    throw limitError(`a string grew longer than ${LIMITS.stringLength} characters, the emulator's limit`);
}

export const limitError = (message: string) => new ScriptRuntimeError('circuit_breaking_exception', message);

export function spend(budget: Budget, units: number): void {
  budget.allocated += units;
  if (budget.allocated > LIMITS.allocation) {
    throw limitError(
      `the simulation made more than ${LIMITS.allocation} characters and elements, the emulator's memory ` +
        `limit for one request`,
    );
  }
}

export function checkTime(budget: Budget): void {
  const now = performance.now();
  if (now < budget.nextLook) return;
  budget.nextLook = now + LOOK_EVERY_MS;
  if (computingMs() > budget.deadline)
    throw limitError(`the simulation took longer than ${budget.timeMs} ms, the emulator's limit`);
}

/** What a value costs against the budget: its characters and elements. */
export function sizeOf(value: Value): number {
  if (typeof value === 'string') return value.length;
  if (isMap(value)) {
    let size = value.size;
    for (const [k, v] of value) size += k.length + sizeOf(v);
    return size;
  }
  if (isList(value)) return value.reduce<number>((size, v) => size + sizeOf(v), value.length);
  return 1;
}
