import { resolve } from 'node:path';
import { isProcessRunning, readLock, type LockInfo } from '../store/lock.js';

/** Whether a process id is alive (a zombie is not): how `stop` knows an emulator ended. */
export { isProcessRunning };

/**
 * What an emulator writes in the lock of its data directory: pid, start time, its URLs, with auth on its admin token.
 */
export type EmulatorLock = LockInfo;

/** The emulator that holds `dataDir`, if a live process does: how a program finds an emulator it did not start. */
export function readEmulatorLock(dataDir: string): EmulatorLock | undefined {
  return readLock(resolve(dataDir));
}
