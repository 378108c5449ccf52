import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable, type Writable } from 'node:stream';
import { finished as whenFinished } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { StoreWriteError } from './errors.js';
import { streamedBytes } from './scavenge.js';

/** An upload that went past its limit: nothing of it was kept. */
export class PayloadTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The payload is larger than the limit of ${limit} bytes.`);
  }
}

const PARTIAL = '.part';
/**
 * Errors that mean the disk has no room (a full disk, a quota): answered 503 like every other write that cannot be
 * stored.
 */
const isDiskFull = (err: unknown) => ['ENOSPC', 'EDQUOT'].includes((err as NodeJS.ErrnoException).code ?? '');
/**
 * Bytes an upload's file stream buffers: 1 MiB rather than the 16 KiB default, so that the socket keeps being read
 * while a file write is under way (the chunks buffered meanwhile go down in one writev).
 */
const UPLOAD_BUFFER = 1024 * 1024;
/**
 * A download reads its file into two buffers of this size, reused from one read to the next: one is being
 * sent while the other is read. A file stream allocates a new buffer for every read (100 MB of fresh memory per
 * 100 MB payload: page faults, then collections of that garbage), which cost three times the CPU of the transfer
 * itself (`npm run bench`, figure 8).
 */
const DOWNLOAD_BLOCK = 1024 * 1024;
/**
 * Download blocks kept for the next download once one is over: a new block is fresh memory, whose first use costs a
 * page fault per 4 KiB page (on this project's virtual machines a download without them took 518 faults and half as
 * much CPU again: docs/performance.md, 8a/8b/8c). One download's pair is kept: 2 MiB held for the life of the process.
 */
const IDLE_BLOCKS = 2;
const idleBlocks: Buffer[] = [];
const newBlock = () => Buffer.allocUnsafeSlow(DOWNLOAD_BLOCK);
/** Bytes of an upload received between two early fdatasyncs (see EarlyWriteback). */
const WRITEBACK_EVERY = 16 * 1024 * 1024;

async function fsync(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A promise whose rejection is only seen where it is awaited (or nowhere, when the transfer failed first). */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** One `write` to a destination stream, settled once the destination is done with the buffer (or is gone). */
function written(destination: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const gone = () => reject(new Error('The destination closed before the payload was sent.'));
    if (destination.destroyed) return gone();
    destination.once('close', gone);
    destination.write(chunk, (err) => {
      destination.off('close', gone);
      if (err) reject(err);
      else resolve();
    });
  });
}

/** A stored file opened for reading: `sendTo` writes it whole to a stream and ends that stream. */
export class StoredPayload {
  constructor(private readonly handle: FileHandle) {}

  /**
   * Reads the file into one block while the other is being written to `destination` (a block is reused only once
   * the destination has taken it off our hands: the socket write's callback); rejects, and destroys the
   * destination, when the destination goes away first or the file fails to read. Closes the file either way.
   */
  async sendTo(destination: Writable): Promise<void> {
    const blocks = [idleBlocks.pop() ?? newBlock(), idleBlocks.pop() ?? newBlock()];
    const sending: Array<Promise<void>> = [Promise.resolve(), Promise.resolve()];
    let sent = false;
    try {
      for (let current = 0, position = 0; ; current ^= 1) {
        await sending[current];
        const { bytesRead } = await this.handle.read(blocks[current], 0, DOWNLOAD_BLOCK, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        sending[current] = later(
          written(destination, bytesRead === DOWNLOAD_BLOCK ? blocks[current] : blocks[current].subarray(0, bytesRead)),
        );
      }
      await Promise.all(sending);
      sent = true;
      destination.end();
      await finished(destination);
    } catch (err) {
      // A file that fails to read leaves an answer that is short of its Content-Length: cut it off.
      destination.destroy();
      throw err;
    } finally {
      await Promise.allSettled(sending);
      // Every write of the blocks has completed: they can serve the next download. After a failed write the socket
      // might still hold on to one, so they are left to the collector then.
      if (sent) for (const block of blocks) if (idleBlocks.length < IDLE_BLOCKS) idleBlocks.push(block);
      await this.handle.close();
    }
  }
}

/**
 * Starts the disk writes of an upload while it is still arriving: every `WRITEBACK_EVERY` bytes received, an
 * fdatasync of what is written so far (one at a time, on the thread pool, not awaited by the transfer). The kernel
 * would otherwise keep the whole payload dirty in memory until the fsync before the answer, which then waits for all
 * of it; now it waits for the last few MiB. The fsync before the answer stays: these only make it shorter.
 */
class EarlyWriteback {
  private sinceSync = 0;
  private syncing: Promise<void> | undefined;
  private failure: unknown;

  constructor(private readonly handle: FileHandle) {}

  received(bytes: number): void {
    this.sinceSync += bytes;
    if (this.sinceSync < WRITEBACK_EVERY || this.syncing || this.failure) return;
    this.sinceSync = 0;
    this.syncing = this.handle.datasync().then(
      () => (this.syncing = undefined),
      (err: unknown) => {
        this.failure = err;
        this.syncing = undefined;
      },
    );
  }

  /**
   * Resolves once no fdatasync is under way; rejects with the error of one that failed. Linux reports a failed
   * writeback to one sync call only, so a later fsync of the file could succeed without the payload being whole.
   */
  async settled(): Promise<void> {
    await this.syncing;
    if (this.failure) throw this.failure;
  }
}

/**
 * Streams `source` through `counter` into `file`. A write that fails does not destroy the source (as `pipeline` would):
 * the client is still sending, so the rest is read and dropped and the error thrown once it is in, so that the client
 * gets its answer (a 503 for a full disk) rather than a reset connection. A source that fails or closes early fails it.
 */
async function intoFile(source: Readable, counter: Transform, file: Writable): Promise<void> {
  const stopWatching = whenFinished(source, (err) => {
    if (err) counter.destroy(err);
  });
  source.pipe(counter);
  try {
    await pipeline(counter, file);
  } catch (err) {
    source.unpipe(counter);
    if (!source.destroyed && !source.readableEnded) {
      source.resume();
      await finished(source).catch(() => undefined);
    }
    throw err;
  } finally {
    stopWatching();
  }
}

/**
 * Binary payloads (blobs, files) as files of their own, streamed in and out and never held whole in memory:
 * under `<data directory>/blobs/`, or in memory mode a temporary directory that `dispose` removes. The store
 * keeps only their metadata records, which name the file. A file is complete, fsynced and renamed into place
 * before its record is committed; a partial upload is a `.part` file that is removed when it fails.
 */
export class BlobFiles {
  private dir: string | undefined;
  private readonly writing = new Set<string>();

  /** `dataDir` undefined: a temporary directory, made at the first upload. */
  constructor(private readonly dataDir: string | undefined) {
    if (dataDir) this.dir = join(dataDir, 'blobs');
  }

  private async directory(): Promise<string> {
    if (!this.dir) this.dir = await mkdtemp(join(tmpdir(), 'platform-emu-blobs-'));
    else await mkdir(this.dir, { recursive: true });
    return this.dir;
  }

  /**
   * Streams `source` into a new file and returns its name and size. Past `limit` bytes the rest of the source is
   * read and dropped (so that an HTTP client still gets its answer) and `PayloadTooLarge` is thrown; a source that
   * fails (a client that went away) throws its error. Either way no file is left.
   */
  async write(source: Readable, limit: number): Promise<{ file: string; size: number }> {
    const dir = await this.directory();
    const file = `${randomUUID()}.bin`;
    const partial = join(dir, file + PARTIAL);
    this.writing.add(partial);
    try {
      const handle = await open(partial, 'wx', 0o600);
      let size = 0;
      try {
        const writeback = new EarlyWriteback(handle);
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            size += chunk.length;
            streamedBytes(chunk.length);
            if (size > limit) return done();
            writeback.received(chunk.length);
            done(null, chunk);
          },
        });
        try {
          await intoFile(
            source,
            counter,
            // Its own descriptor: a stream closes its descriptor when it fails, which must not be the handle's.
            createWriteStream(partial, { flags: 'r+', highWaterMark: UPLOAD_BUFFER }),
          );
        } finally {
          await writeback.settled();
        }
        if (size > limit) throw new PayloadTooLarge(limit);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(partial, join(dir, file));
      await fsync(dir, 'r');
      return { file, size };
    } catch (err) {
      await rm(partial, { force: true });
      throw isDiskFull(err)
        ? new StoreWriteError(
            `The upload could not be written to disk (${(err as NodeJS.ErrnoException).code}: ` +
              `${(err as Error).message}); nothing of it was kept. Free space, then retry.`,
          )
        : err;
    } finally {
      this.writing.delete(partial);
    }
  }

  /** A stored file, open for sending; undefined when the file is not there (an imported state without its payloads). */
  async read(file: string): Promise<StoredPayload | undefined> {
    if (!this.dir) return undefined;
    try {
      return new StoredPayload(await open(join(this.dir, file), 'r'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async remove(file: string): Promise<void> {
    if (this.dir) await rm(join(this.dir, file), { force: true });
  }

  /**
   * Removes every file no record names and every partial upload not under way (left by a crash, a reset, an import).
   */
  async removeUnlisted(listed: ReadonlySet<string>): Promise<void> {
    if (!this.dir) return;
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await Promise.all(
      names
        .filter((name) => !listed.has(name) && !this.writing.has(join(this.dir!, name)))
        .map((name) => rm(join(this.dir!, name), { force: true })),
    );
  }

  /** In memory mode, removes the temporary directory with every payload in it. */
  async dispose(): Promise<void> {
    if (!this.dataDir && this.dir) await rm(this.dir, { recursive: true, force: true });
    if (!this.dataDir) this.dir = undefined;
  }
}
