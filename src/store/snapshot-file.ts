import { readdirSync, rmSync } from 'node:fs';
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { StoreError } from './errors.js';
import { isPlainObject } from './json-values.js';
import { prettyJsonPieces } from './pretty-json.js';

async function fsyncPath(path: string, flags = 'r'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Pieces of a text are gathered to about this many characters a write: between two writes, requests are served.
 * Making a chunk's text is the main thread's work: 256 KiB took 4-13 ms of it at a fleet of 10,000 devices, where
 * 1 MiB held every request behind it for 15-26 ms at each compaction (docs/performance.md, round nineteen).
 */
const WRITE_CHUNK = 256 * 1024;

async function writePieces(handle: FileHandle, pieces: Iterable<string>): Promise<void> {
  let text = '';
  for (const piece of pieces) {
    text += piece;
    if (text.length < WRITE_CHUNK) continue;
    await handle.writeFile(text);
    text = '';
  }
  if (text) await handle.writeFile(text);
}

/**
 * Writes a file (mode 600) whole or not at all, and durably: a temp file, fsync, rename, fsync of the directory. A
 * crash leaves the old or the new file, never half of one, and a reader beside the writer never sees half of one.
 * `content` given in pieces is written as they come (the snapshot of a large state: `prettyJsonPieces`).
 */
export async function replaceFileDurably(path: string, content: string | Buffer | Iterable<string>): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const handle = await open(temp, 'w', 0o600);
  try {
    try {
      if (typeof content === 'string' || Buffer.isBuffer(content)) await handle.writeFile(content);
      else await writePieces(handle, content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    // A full disk: the old file stays; do not leave a partial copy taking the space.
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  await fsyncPath(dirname(path));
}

/** `replaceFileDurably`'s temporary copy of a `.json` or `.jsonl` file: `.<name>.<pid>.tmp`. */
const LEFT_BY_A_KILL = /^\.[\w.-]+\.jsonl?\.\d+\.tmp$/;

/**
 * Removes the temporary copies that writes killed midway left in a data directory (a snapshot's is as large as the
 * state). Only the holder of the directory's lock calls it: no other writer can be alive there.
 */
export function removeLeftTemporaries(dir: string): void {
  for (const name of readdirSync(dir)) if (LEFT_BY_A_KILL.test(name)) rmSync(join(dir, name), { force: true });
}

/**
 * lowdb adapter for the snapshot `state.json`: readable JSON, replaced atomically and durably
 * (`replaceFileDurably`).
 */
export class DurableJSONFile<T> implements Adapter<T> {
  /** The length of the file's text as last read or written (0 when there was no file). */
  length = 0;

  constructor(private readonly path: string) {}

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
      this.length = text.length;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new StoreError(
        `${this.path} is not valid JSON (${(err as Error).message}). ` +
          'The emulator did not touch it; repair or move it away, then start again.',
      );
    }
    // lowdb would take a `null` (or any falsy value) as "no file yet" and seed over it.
    if (!isPlainObject(parsed)) {
      throw new StoreError(
        `${this.path} is not a platform-emu state document (a JSON object with schemaVersion and collections). ` +
          'The emulator did not touch it; repair or move it away, then start again.',
      );
    }
    return parsed as T;
  }

  async write(data: T): Promise<void> {
    let length = 0;
    const counted = function* () {
      for (const piece of snapshotText(data)) {
        length += piece.length;
        yield piece;
      }
    };
    // Readable by its owner only: the state holds client secrets and password hashes.
    await replaceFileDurably(this.path, counted());
    this.length = length;
  }
}

/** `JSON.stringify(data, null, 1)` and a newline, in pieces. */
function* snapshotText(data: unknown): Generator<string> {
  yield* prettyJsonPieces(data);
  yield '\n';
}
