import { performance } from 'node:perf_hooks';
import { ScriptRuntimeError } from './errors.js';
import { isList, isMap, type Value } from './values.js';

/** What one simulation may spend, across all its documents, processors and scripts. */
export interface Budget {
  /** `performance.now()` past which the run stops: computing time, not the emulator's (possibly virtual) clock. */
  deadline: number;
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

export const newBudget = (timeMs: number = LIMITS.timeMs): Budget => ({
  deadline: performance.now() + timeMs,
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
  if (performance.now() > budget.deadline)
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
