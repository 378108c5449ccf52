import { close, constants, fdatasync, fdatasyncSync, ftruncate, open, write, writeSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { StoreWriteError } from './errors.js';
import { replaceFileDurably } from './snapshot-file.js';

interface Waiting<T> {
  text: string;
  /** How many requests wait for this append (a batch of samples commits once for all of them). */
  writers: number;
  /** What the owner needs to undo this append's change if it never reaches the disk. */
  undo: T;
  resolve: () => void;
  reject: (err: Error) => void;
}

export interface LogOwner<T> {
  /**
   * Runs with the appends of a batch that reached the disk, oldest first, before any of them is answered and before
   * `afterFlush`: what a change does only once written is done by then, so a snapshot taken next holds it.
   */
  written(undos: T[]): void;
  /** Runs after each batch that reached the disk, with the log's new size (compaction). */
  afterFlush(logBytes: number): Promise<void>;
  /**
   * Runs, before any of them is rejected, with the appends that will never reach the disk, oldest first:
   * the batch whose write failed and every append queued behind it.
   */
  lost(undos: T[]): void;
}

/**
 * Where the system has it, the log is opened with O_DSYNC: each write(2) returns once its bytes are as durable as
 * after an fdatasync, so that a batch costs one trip to libuv's thread pool instead of two (write, then fdatasync).
 */
const DSYNC: number = constants.O_DSYNC ?? 0;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | DSYNC;

const settle =
  <R>(resolve: (value: R) => void, reject: (err: Error) => void) =>
  (err: Error | null, value?: R) =>
    err ? reject(err) : resolve(value as R);

const writeAt = (fd: number, buffer: Buffer, offset: number) =>
  new Promise<number>((resolve, reject) =>
    write(fd, buffer, offset, buffer.length - offset, null, settle(resolve, reject)),
  );
const datasync = (fd: number) => new Promise<void>((resolve, reject) => fdatasync(fd, settle(resolve, reject)));
const truncateTo = (fd: number, size: number) =>
  new Promise<void>((resolve, reject) => ftruncate(fd, size, settle(resolve, reject)));
const openForAppends = (path: string) =>
  new Promise<number>((resolve, reject) => open(path, APPEND, 0o600, settle(resolve, reject)));
const closeFd = (fd: number) => new Promise<void>((resolve, reject) => close(fd, settle(resolve, reject)));

/** Bytes `from` to `to` of a file. */
async function readRange(path: string, from: number, to: number): Promise<Buffer> {
  const handle = await openFile(path, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    if (bytesRead !== buffer.length) throw new Error(`${path} is shorter than the log has written`);
    return buffer;
  } finally {
    await handle.close();
  }
}

/**
 * Writes all of `buffer` durably, on the calling thread (`inPlace`) or on libuv's thread pool: a short write (a nearly
 * full disk) is continued, and a write that takes nothing fails.
 */
async function writeAll(fd: number, buffer: Buffer, inPlace: boolean): Promise<void> {
  let offset = 0;
  while (offset < buffer.length) {
    const bytesWritten = inPlace
      ? writeSync(fd, buffer, offset, buffer.length - offset)
      : await writeAt(fd, buffer, offset);
    if (bytesWritten <= 0)
      throw Object.assign(new Error('no space left on device (the write took no bytes)'), { code: 'ENOSPC' });
    offset += bytesWritten;
  }
  if (DSYNC) return;
  if (inPlace) fdatasyncSync(fd);
  else await datasync(fd);
}

/**
 * A lone writer's batch is written on the main thread while the disk answers within this time: its one answer waits
 * for the write either way, and the trip to libuv's thread pool and back costs as much as a fast write (see
 * docs/performance.md, "round twelve"). A slower write sends the next ones to the thread pool, so that a slow disk
 * never holds the event loop for long; a fast one there brings them back.
 */
const IN_PLACE_WRITE_LIMIT_MS = 1;

/**
 * Whether a batch is written on the main thread: only a lone writer's (no concurrent writers last time, one writer
 * waiting now) while the disk answered the last write within IN_PLACE_WRITE_LIMIT_MS. A batch several requests wait
 * for goes to the thread pool: the event loop has their next requests to read meanwhile.
 */
export function writesInPlace(batchWriters: number, concurrent: boolean, lastWriteMs: number): boolean {
  return !concurrent && batchWriters === 1 && lastWriteMs < IN_PLACE_WRITE_LIMIT_MS;
}

/**
 * The append-only mutation log (JSON lines). Every append is answered once its line is on disk;
 * appends that arrive while a flush is under way share the next write and the next fdatasync
 * (group commit), so the cost of a write does not depend on the size of the state or on concurrency. A lone
 * writer's line goes out at once (on the main thread while the disk is fast: IN_PLACE_WRITE_LIMIT_MS); under
 * concurrent writers a flush first waits one turn of the event loop. An append that several requests wait for (a
 * batch of a fleet's samples) counts as that many writers: a busy event loop does not wait on the disk for it.
 *
 * A batch is written whole or not at all: if any byte of it cannot be written or synced, the file is cut
 * back to where the batch began, and that batch and every append queued behind it are rejected
 * (the owner undoes them first). The next append tries again. Only if the file cannot be cut back
 * (it may then end in part of a line) does the log refuse every later append until a restart.
 */
export class MutationLog<T> {
  private queue: Waiting<T>[] = [];
  private writing: Waiting<T>[] = [];
  private flushing: Promise<void> | undefined;
  /** Why the last write failed, until a write succeeds again. */
  private lastFailure: StoreWriteError | undefined;
  /** Set when the file could not be cut back after a failed write: nothing can be appended safely any more. */
  private broken: StoreWriteError | undefined;
  /** Whether the last flush wrote for more than one writer (several at once), which decides how the next waits. */
  private concurrent = false;
  /** How long the last batch took to reach the disk (see IN_PLACE_WRITE_LIMIT_MS). */
  private lastWriteMs = 0;

  private constructor(
    private readonly path: string,
    private fd: number,
    private size: number,
    private readonly owner: LogOwner<T>,
  ) {}

  static async open<T>(path: string, size: number, owner: LogOwner<T>): Promise<MutationLog<T>> {
    return new MutationLog(path, await openForAppends(path), size, owner);
  }

  get bytes(): number {
    return this.size;
  }

  /** Why the last write to disk failed, as long as no write has succeeded since; undefined when healthy. */
  get failure(): StoreWriteError | undefined {
    return this.broken ?? this.lastFailure;
  }

  /** The appends not on disk yet (being written or queued), oldest first. */
  get unwritten(): T[] {
    return [...this.writing, ...this.queue].map((w) => w.undo);
  }

  append(text: string, undo: T, writers = 1): Promise<void> {
    if (this.broken) {
      this.owner.lost([undo]);
      return Promise.reject(this.broken);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ text, undo, writers, resolve, reject });
      this.flushing ??= this.flushAll();
    });
  }

  /** Runs `task` while no write is under way (snapshot, truncate, replace). */
  async exclusive<R>(task: () => Promise<R>): Promise<R> {
    while (this.flushing) await this.flushing;
    let release!: () => void;
    this.flushing = new Promise((resolve) => (release = resolve));
    try {
      return await task();
    } finally {
      this.flushing = undefined;
      release();
      if (this.queue.length > 0) this.flushing = this.flushAll();
    }
  }

  /** Rejects (after the owner undoes them) the appends queued behind an exclusive task that failed. */
  abandonQueued(reason: StoreWriteError): void {
    const lost = this.queue.splice(0);
    this.owner.lost(lost.map((w) => w.undo));
    for (const w of lost) w.reject(reason);
  }

  async truncate(): Promise<void> {
    await truncateTo(this.fd, 0);
    await datasync(this.fd);
    this.size = 0;
  }

  /**
   * Drops the first `bytes` of the log (lines a new snapshot holds) and keeps the lines appended after them: the rest
   * is copied to a new file that replaces the log durably. Run inside `exclusive`. A crash leaves the old log (its
   * first lines are then skipped, the snapshot holding them) or the new one.
   */
  async dropHead(bytes: number): Promise<void> {
    if (bytes >= this.size) return this.truncate();
    await replaceFileDurably(this.path, await readRange(this.path, bytes, this.size));
    let fd: number;
    try {
      fd = await openForAppends(this.path);
    } catch (err) {
      // The descriptor in hand writes to the file just replaced: an append there would be lost at the next start.
      this.broken = new StoreWriteError(
        `The mutation log could not be opened again after compaction (${(err as Error).message}); this emulator ` +
          'accepts no more changes: restart it.',
      );
      throw err;
    }
    await closeFd(this.fd).catch(() => undefined);
    this.fd = fd;
    this.size -= bytes;
  }

  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await closeFd(this.fd);
  }

  private async flushAll(): Promise<void> {
    // One writer at a time (the last flush took a single append): the write goes out as soon as the code that made
    // the commit ends, since that one answer waits for it. Concurrent writers: one turn of the event loop first, so
    // that every request read in this turn joins the batch rather than waiting behind a write of the first alone.
    if (this.concurrent) await new Promise((resolve) => setImmediate(resolve));
    else await undefined;
    let writers = 0;
    while (this.queue.length > 0) {
      const batch = (this.writing = this.queue);
      this.queue = [];
      const batchWriters = batch.length === 1 ? batch[0].writers : batch.reduce((sum, w) => sum + w.writers, 0);
      writers += batchWriters;
      const buffer = Buffer.from(batch.length === 1 ? batch[0].text : batch.map((w) => w.text).join(''));
      const started = performance.now();
      try {
        await writeAll(this.fd, buffer, writesInPlace(batchWriters, this.concurrent, this.lastWriteMs));
      } catch (err) {
        await this.fail(err as Error);
        break;
      }
      this.lastWriteMs = performance.now() - started;
      this.writing = [];
      this.size += buffer.length;
      this.lastFailure = undefined;
      this.owner.written(batch.map((w) => w.undo));
      for (const w of batch) w.resolve();
      await this.owner.afterFlush(this.size).catch(() => undefined);
    }
    this.concurrent = writers > 1;
    this.flushing = undefined;
  }

  /** Cuts the file back to its last acknowledged line, then undoes and rejects everything not written. */
  private async fail(err: Error): Promise<void> {
    const reason = (err as NodeJS.ErrnoException).code
      ? `${(err as NodeJS.ErrnoException).code}: ${err.message}`
      : err.message;
    try {
      await truncateTo(this.fd, this.size);
      await datasync(this.fd);
      this.lastFailure = new StoreWriteError(
        `The change could not be written to disk (${reason}); nothing of it was kept. Free space or fix the ` +
          `disk, then retry.`,
      );
    } catch (cutErr) {
      this.broken = new StoreWriteError(
        `The state could not be written to disk (${reason}), and the log could not be cut back to its last ` +
          `complete line ` +
          `(${(cutErr as Error).message}); this emulator accepts no more changes: restart it.`,
      );
    }
    const failed = this.failure!;
    // Appends that arrive from here on (while the owner undoes) join a fresh queue and get their own try.
    const lost = [...this.writing, ...this.queue.splice(0)];
    this.writing = [];
    this.owner.lost(lost.map((w) => w.undo));
    for (const w of lost) w.reject(failed);
  }
}
