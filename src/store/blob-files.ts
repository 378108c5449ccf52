import { randomUUID } from 'node:crypto';
import { createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** An upload that went past its limit: nothing of it was kept. */
export class PayloadTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The payload is larger than the limit of ${limit} bytes.`);
  }
}

const PARTIAL = '.part';
/**
 * Bytes a payload stream buffers: 1 MiB rather than the streams' 16/64 KiB defaults, so that the socket keeps being
 * read while a file write is under way (the chunks buffered meanwhile go down in one writev) and a download reads
 * the file in 1 MiB steps: fewer thread-pool round trips and less CPU per byte (`npm run bench`, figure 8).
 */
const STREAM_BUFFER = 1024 * 1024;

async function fsync(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
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
    let size = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, size > limit ? undefined : chunk);
      },
    });
    this.writing.add(partial);
    try {
      await pipeline(source, counter, createWriteStream(partial, { flags: 'wx', highWaterMark: STREAM_BUFFER }));
      if (size > limit) throw new PayloadTooLarge(limit);
      await fsync(partial, 'r+');
      await rename(partial, join(dir, file));
      await fsync(dir, 'r');
      return { file, size };
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    } finally {
      this.writing.delete(partial);
    }
  }

  /** A stream of a stored file; undefined when the file is not there (an imported state without its payloads). */
  async read(file: string): Promise<ReadStream | undefined> {
    if (!this.dir) return undefined;
    try {
      const handle = await open(join(this.dir, file), 'r');
      return handle.createReadStream({ highWaterMark: STREAM_BUFFER });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async remove(file: string): Promise<void> {
    if (this.dir) await rm(join(this.dir, file), { force: true });
  }

  /** Removes every file no record names and every partial upload not under way (left by a crash, a reset, an import). */
  async removeUnlisted(listed: ReadonlySet<string>): Promise<void> {
    if (!this.dir) return;
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await Promise.all(names.filter((name) => !listed.has(name) && !this.writing.has(join(this.dir!, name))).map((name) => rm(join(this.dir!, name), { force: true })));
  }

  /** In memory mode, removes the temporary directory with every payload in it. */
  async dispose(): Promise<void> {
    if (!this.dataDir && this.dir) await rm(this.dir, { recursive: true, force: true });
    if (!this.dataDir) this.dir = undefined;
  }
}
