import { setFlagsFromString } from 'node:v8';

/** V8's flag, and the growth after a full collection the emulator's process asks for: the heap may double. */
const HEAP_GROWTH_FLAG = '--heap-growing-percent';
const HEAP_GROWTH_PERCENT = 100;

/**
 * Caps how far V8 lets the heap grow past what a full collection found alive, and answers whether it did. On a
 * machine with memory to spare V8 lets the heap reach up to four times that before the next full collection; under a
 * fleet's samples (much of what they allocate outlives a young collection or two, then dies) the emulator then held
 * two to four times the memory it needed (10,000 devices: a peak of 1.2 GB with 240 MB alive), and the simulator of
 * that fleet up to 1.4 GB. V8 reads the flag at each full collection, so it can be set once the process runs. A
 * `node --heap-growing-percent=N` given by the user wins. Only the CLI's own process sets it (`start`, `exec` and
 * `device simulate`): an emulator or simulator started inside another program leaves that program's heap as it is.
 */
export function capHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => arg.startsWith(HEAP_GROWTH_FLAG) || arg.startsWith('--heap_growing_percent')))
    return false;
  setFlagsFromString(`${HEAP_GROWTH_FLAG}=${HEAP_GROWTH_PERCENT}`);
  return true;
}
