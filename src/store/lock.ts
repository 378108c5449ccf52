import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StoreError } from './errors.js';

export interface LockInfo {
  pid: number;
  startedAt: string;
  url?: string;
  mqttUrl?: string;
  mqttsUrl?: string;
  /** With auth on: the token the control plane (`/_emu`) needs. The file is readable by its owner only. */
  adminToken?: string;
}

const LOCK_FILE = 'emulator.lock';

const describe = (err: unknown) => {
  const code = (err as NodeJS.ErrnoException).code;
  return code ? `${code}: ${(err as Error).message}` : (err as Error).message;
};

/**
 * Lock files this process holds. A lock naming our own pid is ours only if it is in here: otherwise it was
 * left by an earlier process that had the same pid (pids are reused, in containers right after a restart).
 */
const heldByThisProcess = new Set<string>();

/**
 * Whether a process runs: a zombie (killed, not yet reaped by its parent) does not, though `kill(pid, 0)` still
 * reaches it; where /proc exists it says so, elsewhere the signal test decides.
 */
export function isProcessRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self/stat')) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isAlive = isProcessRunning;

/** Who holds the data directory now, if anybody alive does. */
export function readLock(dir: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockInfo;
    return typeof info.pid === 'number' && isAlive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One emulator per data directory: the lock file holds the owner's pid (and, once it listens, its URLs).
 * A lock left by a dead process is taken over with a warning.
 */
export class DirectoryLock {
  private constructor(
    private readonly path: string,
    private info: LockInfo,
  ) {}

  static acquire(dir: string, warn: (message: string) => void): DirectoryLock {
    const path = resolve(dir, LOCK_FILE);
    const info: LockInfo = { pid: process.pid, startedAt: new Date().toISOString() };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        try {
          writeSync(fd, JSON.stringify(info));
        } catch (err) {
          // A full disk: no half-written lock stays behind to be taken for a stale one.
          closeSync(fd);
          rmSync(path, { force: true });
          throw new StoreError(
            `Could not lock the data directory ${dir}: writing ${path} failed (${describe(err)}). Free space, ` +
              `then start again.`,
          );
        }
        closeSync(fd);
        heldByThisProcess.add(path);
        return new DirectoryLock(path, info);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = readLock(dir);
      if (owner && (owner.pid !== process.pid || heldByThisProcess.has(path))) {
        const who =
          owner.pid === process.pid
            ? 'another emulator in this process'
            : `another platform-emu (pid ${owner.pid}${owner.url ? ` at ${owner.url}` : ''})`;
        throw new StoreError(
          `The data directory ${dir} is in use by ${who}. ` +
            'Stop that emulator, or start this one with another --data directory or --in-memory.',
        );
      }
      warn(`Taking over the stale lock ${path} left by a process that is no longer running.`);
      rmSync(path, { force: true });
    }
    throw new StoreError(`Could not lock the data directory ${dir}: ${path} keeps reappearing.`);
  }

  /** Adds the URLs once the emulator listens, so that the CLI can find a running emulator. */
  update(extra: Partial<LockInfo>): void {
    this.info = { ...this.info, ...extra };
    // Replaced by a rename, so that a CLI reading the lock never sees half of it.
    const temp = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, JSON.stringify(this.info), { mode: 0o600 });
      renameSync(temp, this.path);
    } catch (err) {
      rmSync(temp, { force: true });
      throw new StoreError(
        `Could not write the lock file ${this.path} (${describe(err)}). Free space, then start again.`,
      );
    }
  }

  release(): void {
    if (!heldByThisProcess.delete(this.path)) return;
    rmSync(this.path, { force: true });
  }
}
