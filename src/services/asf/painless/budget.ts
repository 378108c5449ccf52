import { performance } from 'node:perf_hooks';
import { ScriptRuntimeError } from './errors.js';
import { isList, isMap, type Value } from './values.js';

/** What one simulation may spend, across all its documents, processors and scripts. */
export interface Budget {
  /** `performance.now()` past which the run stops: computing time, not the emulator's (possibly virtual) clock. */
  deadline: number;
  /** Characters of strings and elements of maps and lists made so far. */
  allocated: number;
}

export const LIMITS = {
  /** Loop iterations of one script run (the search engine's own `max_loop_counter` default). */
  loopIterations: 1_000_000,
  allocation: 4_000_000,
  stringLength: 1_000_000,
  /** Milliseconds one simulation request may compute. */
  timeMs: 1000,
};

export const newBudget = (): Budget => ({ deadline: performance.now() + LIMITS.timeMs, allocated: 0 });

export const limitError = (message: string) => new ScriptRuntimeError('circuit_breaking_exception', message);

export function spend(budget: Budget, units: number): void {
  budget.allocated += units;
  if (budget.allocated > LIMITS.allocation) {
    throw limitError(
      `the simulation made more than ${LIMITS.allocation} characters and elements, the emulator's memory limit for one request`,
    );
  }
}

export function checkTime(budget: Budget): void {
  if (performance.now() > budget.deadline)
    throw limitError(`the simulation took longer than ${LIMITS.timeMs} ms, the emulator's limit`);
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
