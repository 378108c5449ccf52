/** How a directory's secret is made and kept: `make` off the main thread, `makeNow` on it, `save` to its file (`replaceFileDurably`). */
export interface SecretMaking<T> {
  /** Made in the background (the thread pool, a worker): what the emulator starts once it is ready. */
  make: () => Promise<T>;
  /** Made at once, on the main thread: for a caller that needs the secret before the background one is done. */
  makeNow: () => T;
  save: (value: T) => Promise<void>;
  /** Told when a secret made this run could not be saved (it still serves this run). */
  warn: (message: string) => void;
  /** What it is, for that warning: "signing key". */
  what: string;
}

/**
 * A secret a data directory gets once, its signing key or its certificate authority, made where a start does not wait
 * for it: in the background once the emulator is ready (`made`), or at once by a caller that cannot wait (`now`).
 * Whichever is made first is kept, and saved; the other is dropped. One process holds the directory's lock, so one
 * holder writes the file.
 */
export class DirectorySecret<T> {
  private value: T | undefined;
  private making: Promise<T> | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly how: SecretMaking<T>,
    existing?: T,
  ) {
    this.value = existing;
  }

  /** The secret, made here on the main thread if nothing has made it yet. */
  now(): T {
    if (this.value === undefined) this.keep(this.how.makeNow());
    return this.value!;
  }

  /** The secret, made in the background if nothing has made it yet (started by the first call). */
  made(): Promise<T> {
    if (this.value !== undefined) return Promise.resolve(this.value);
    return (this.making ??= this.how.make().then((value) => {
      if (this.value === undefined) this.keep(value);
      return this.value!;
    }));
  }

  /** Once whatever was started is done and saved: a stop waits for it, so the next start finds the file. */
  async settled(): Promise<void> {
    await this.making?.catch(() => undefined);
    await this.saving;
  }

  private keep(value: T): void {
    this.value = value;
    this.saving = this.how.save(value).catch((err: Error) => {
      this.how.warn(
        `The ${this.how.what} made for this run could not be saved (${err.message}); it serves this run only.`,
      );
    });
  }
}
