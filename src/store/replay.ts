import { open, readFile } from 'node:fs/promises';
import type { LogLine } from './document.js';
import { StoreError } from './errors.js';

/**
 * Reads the mutation log. A torn last line (the process died mid-append, so it was never acknowledged)
 * is cut off with a warning; any other unreadable line stops the start and leaves the file as it is.
 */
export async function readLog(path: string, warn: (message: string) => void): Promise<{ lines: LogLine[]; size: number }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], size: 0 };
    throw err;
  }
  const raw = text.split('\n');
  const lines: LogLine[] = [];
  let goodBytes = 0;
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i];
    const isLast = i === raw.length - 1 || (i === raw.length - 2 && raw[raw.length - 1] === '');
    if (line === '') {
      if (i !== raw.length - 1) goodBytes += 1;
      continue;
    }
    let parsed: LogLine;
    try {
      parsed = JSON.parse(line) as LogLine;
      if (typeof parsed.s !== 'number' || !Array.isArray(parsed.m)) throw new Error('not a mutation');
    } catch (err) {
      const torn = isLast && !text.endsWith('\n');
      if (!torn) {
        throw new StoreError(
          `${path} line ${i + 1} is unreadable (${(err as Error).message}). ` +
            'The emulator did not touch the file; repair or remove that line, then start again.',
        );
      }
      warn(`Dropped a torn last line of ${path} (line ${i + 1}): a write interrupted before it was acknowledged.`);
      const handle = await open(path, 'r+');
      await handle.truncate(goodBytes);
      await handle.sync();
      await handle.close();
      break;
    }
    lines.push(parsed);
    goodBytes += Buffer.byteLength(line) + 1;
  }
  return { lines, size: goodBytes };
}
