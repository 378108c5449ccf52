import { open, type FileHandle } from 'node:fs/promises';

interface Waiting {
  text: string;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The append-only mutation log (JSON lines). Every append is answered once its line is on disk;
 * appends that arrive while a flush is under way share the next write and the next fdatasync
 * (group commit), so the cost of a write does not depend on the size of the state or on concurrency.
 */
export class MutationLog {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | undefined;
  /** Set once a write failed: the memory then holds changes the disk does not, so no later change is accepted. */
  private failure: Error | undefined;

  private constructor(
    private readonly handle: FileHandle,
    private size: number,
    private readonly afterFlush: (logSize: number) => Promise<void>,
  ) {}

  static async open(path: string, size: number, afterFlush: (logSize: number) => Promise<void>): Promise<MutationLog> {
    const handle = await open(path, 'a');
    return new MutationLog(handle, size, afterFlush);
  }

  get bytes(): number {
    return this.size;
  }

  append(text: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ text, resolve, reject });
      this.flushing ??= this.flushAll();
    });
  }

  /** Runs `task` while no write is under way (snapshot, truncate, replace). */
  async exclusive<T>(task: () => Promise<T>): Promise<T> {
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

  async truncate(): Promise<void> {
    await this.handle.truncate(0);
    await this.handle.datasync();
    this.size = 0;
  }

  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.handle.close();
  }

  private async flushAll(): Promise<void> {
    // Yield once so that every request handled in this turn of the event loop joins the batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const buffer = Buffer.from(batch.map((w) => w.text).join(''));
      try {
        await this.handle.write(buffer);
        await this.handle.datasync();
        this.size += buffer.length;
        for (const w of batch) w.resolve();
      } catch (err) {
        this.failure = new Error(
          `The state could not be written to disk (${(err as Error).message}); this emulator accepts no more changes: restart it.`,
        );
        for (const w of [...batch, ...this.queue.splice(0)]) w.reject(this.failure);
        break;
      }
      await this.afterFlush(this.size).catch(() => undefined);
    }
    this.flushing = undefined;
  }
}
