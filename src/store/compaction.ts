import type { StateDocument } from './document.js';
import { LOG_FILE, SNAPSHOT_FILE } from './file-names.js';
import type { MutationLog } from './mutation-log.js';
import type { DurableJSONFile } from './snapshot-file.js';

const COMPACT_BYTES_AT_LEAST = 16 * 1024 * 1024;

/**
 * Compaction of a data directory: once the log passes `compactBytes`, the snapshot is rewritten and the lines it holds
 * are dropped from the log. Without `compactBytes`, once it passes 16 MiB or the snapshot's size, whichever is larger:
 * a compaction rewrites the whole snapshot, and a fixed size of log would rewrite a large state (tens of megabytes at
 * a fleet of 10,000 devices) for every 16 MiB of samples (as Redis rewrites its append-only file once it has doubled).
 * Its content is taken inside the log's flush loop, between two writes, so that it holds exactly the lines written so
 * far; it is then written in pieces while requests are served (and their lines appended), and only those first lines
 * are dropped. Whoever writes the snapshot itself (an import, a reset, a clean stop) holds compactions off meanwhile.
 */
export class Compaction<T> {
  private running: Promise<void> | undefined;
  private held = 0;

  constructor(
    private readonly snapshotFile: DurableJSONFile<StateDocument>,
    private readonly compactBytes: number | undefined,
    private readonly warn?: (message: string) => void,
  ) {}

  /** After a batch reached the log: starts a compaction if it is due; `content` is taken only then. */
  afterFlush(log: MutationLog<T>, logBytes: number, content: () => StateDocument): void {
    if (this.running || this.held > 0 || logBytes < this.threshold()) return;
    this.running = this.run(log, content(), logBytes).finally(() => (this.running = undefined));
  }

  private threshold(): number {
    return this.compactBytes ?? Math.max(COMPACT_BYTES_AT_LEAST, this.snapshotFile.length);
  }

  /** Resolves once the compaction under way, if any, has finished (its snapshot written and the log shortened). */
  async finished(): Promise<void> {
    await this.running;
  }

  /** Waits for a compaction under way, and starts none while `task` writes the snapshot itself. */
  async heldOff<R>(task: () => Promise<R>): Promise<R> {
    this.held++;
    try {
      await this.running;
      return await task();
    } finally {
      this.held--;
    }
  }

  private async run(log: MutationLog<T>, document: StateDocument, logBytes: number): Promise<void> {
    try {
      await this.snapshotFile.write(document);
    } catch (err) {
      // The log still holds everything; a later flush tries again.
      this.warn?.(
        `Could not rewrite ${SNAPSHOT_FILE} (${(err as Error).message}); the mutation log keeps growing until it can.`,
      );
      return;
    }
    await log
      .exclusive(() => log.dropHead(logBytes))
      .catch((err: Error) =>
        this.warn?.(
          `Could not shorten ${LOG_FILE} after writing ${SNAPSHOT_FILE} (${err.message}); the lines it holds are ` +
            'skipped on the next start.',
        ),
      );
  }
}
