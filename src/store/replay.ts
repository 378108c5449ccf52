import { open, readFile } from 'node:fs/promises';
import type { LogLine } from './document.js';
import { StoreError } from './errors.js';
import { isSeriesItem } from './series.js';

function isMutation(m: unknown): boolean {
  if (typeof m !== 'object' || m === null) return false;
  const { op, c, id, v } = m as Record<string, unknown>;
  if (typeof c !== 'string' || typeof id !== 'string') return false;
  if (op === 'append') return Array.isArray(v) && v.every(isSeriesItem);
  return op === 'del' || (op === 'put' && typeof v === 'object' && v !== null && !Array.isArray(v));
}

function checkLine(parsed: unknown): LogLine {
  const line = parsed as LogLine;
  const countersOk = line?.c === undefined || (typeof line.c === 'object' && line.c !== null && Object.values(line.c).every(Number.isSafeInteger));
  if (typeof line !== 'object' || line === null || !Number.isSafeInteger(line.s) || !Array.isArray(line.m) || !line.m.every(isMutation) || !countersOk) {
    throw new Error('not a mutation line');
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
 * is cut off with a warning (`repair: false` only skips it, for a read-only look at a directory);
 * any other unreadable line stops the start and leaves the file as it is.
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
      if (line === '') break;
      warn(`Dropped a torn last line of ${path} (line ${i + 1}): a write interrupted before it was acknowledged.`);
      if (repair) {
        const handle = await open(path, 'r+');
        await handle.truncate(goodBytes);
        await handle.sync();
        await handle.close();
      }
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
