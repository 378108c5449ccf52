import { open, readFile } from 'node:fs/promises';
import { checkCounters, checkMutation } from './checks.js';
import type { LogLine } from './document.js';
import { StoreError } from './errors.js';

/** A parsed line the store would have written: its sequence number, mutations and counters as `commit` checks them. */
function checkLine(parsed: unknown): LogLine {
  const line = parsed as LogLine;
  if (typeof line !== 'object' || line === null || !Number.isSafeInteger(line.s) || !Array.isArray(line.m)) {
    throw new Error('not a mutation line');
  }
  try {
    for (const m of line.m) checkMutation(m);
    if (line.c !== undefined) checkCounters(line.c, 'its counters "c"');
  } catch (err) {
    throw new Error(`not a mutation line: ${(err as Error).message.replace(/\.$/, '')}`);
  }
  return line;
}

export interface ReadLog {
  lines: LogLine[];
  /** The 1-based line number in the file of each of `lines`, for error messages. */
  lineNumbers: number[];
  size: number;
}

/**
 * Reads the mutation log. A torn last line (the process died mid-append, so it was never acknowledged)
 * is cut off with a warning. `repair: false`, for a read-only look at a directory, skips it without a word: there it
 * is most often an append of the emulator running beside it, caught half written, and either way it was never
 * acknowledged, so nothing the reader should have seen is missing; a start cuts it if it is still there.
 * Any other unreadable line stops the start and leaves the file as it is.
 */
export async function readLog(path: string, warn: (message: string) => void, repair = true): Promise<ReadLog> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], lineNumbers: [], size: 0 };
    throw err;
  }
  const raw = text.split('\n');
  const lines: LogLine[] = [];
  const lineNumbers: number[] = [];
  let goodBytes = 0;
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i];
    if (i === raw.length - 1) {
      // Every acknowledged line ends with a newline: text after the last one is a write cut short.
      if (line === '' || !repair) break;
      warn(`Dropped a torn last line of ${path} (line ${i + 1}): a write interrupted before it was acknowledged.`);
      const handle = await open(path, 'r+');
      await handle.truncate(goodBytes);
      await handle.sync();
      await handle.close();
      break;
    }
    goodBytes += Buffer.byteLength(line) + 1;
    if (line === '') continue;
    try {
      lines.push(checkLine(JSON.parse(line)));
      lineNumbers.push(i + 1);
    } catch (err) {
      throw new StoreError(
        `${path} line ${i + 1} is unreadable (${(err as Error).message}). ` +
          'The emulator did not touch the file; repair or remove that line, then start again.',
      );
    }
  }
  return { lines, lineNumbers, size: goodBytes };
}
