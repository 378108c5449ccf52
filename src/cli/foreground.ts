import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunningEmulator } from '../index.js';
import type { DirectoryLock } from '../store/lock.js';
import { readyInfo, stopEmulator, type ReadyInfo } from './lifecycle.js';
import { CliError } from './shared.js';
import type { StartOptions } from './start-options.js';

const warn = (message: string) => process.stderr.write(`warning ${message}\n`);

/**
 * An in-memory emulator started with `--detach` holds the lock of its data directory like any other, though it
 * writes no state there: `status`, `stop` and `token` find it by that directory.
 */
async function runLockFor(options: StartOptions): Promise<DirectoryLock | undefined> {
  if (!options.detachedChild || !options.inMemory) return undefined;
  const dir = resolve(options.data);
  mkdirSync(dir, { recursive: true });
  const { DirectoryLock } = await import('../store/lock.js');
  try {
    return DirectoryLock.acquire(dir, warn);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

function announce(
  emulator: RunningEmulator,
  info: ReadyInfo,
  options: StartOptions,
  printBanner: () => Promise<void>,
): Promise<void> | void {
  if (options.json) process.stdout.write(`${JSON.stringify(info)}\n`);
  else if (options.quiet) process.stdout.write(`${emulator.url}\n`);
  else return printBanner();
}

/**
 * `platform-emu start` in this process: SIGINT and SIGTERM are handled from the first moment (a signal that
 * comes while the state loads stops the emulator as soon as it is up), a second signal exits at once.
 */
export async function runInForeground(
  options: StartOptions,
  launch: () => Promise<RunningEmulator>,
  printBanner: (emulator: RunningEmulator) => Promise<void>,
): Promise<void> {
  let emulator: RunningEmulator | undefined;
  let stopRequested: string | undefined;
  let signals = 0;
  const runLock = await runLockFor(options);

  const shutdown = (signal: string) => {
    if (!options.quiet) process.stderr.write(`\n${signal}: finishing requests and saving state...\n`);
    stopEmulator(emulator!, options.exportOnExit)
      .finally(() => runLock?.release())
      .then(
        () => process.exit(0),
        (err: Error) => {
          process.stderr.write(`Could not stop cleanly: ${err.message}\n`);
          process.exit(1);
        },
      );
  };
  const onSignal = (signal: string) => {
    if (++signals > 1) process.exit(1);
    stopRequested = signal;
    if (emulator) shutdown(signal);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  try {
    emulator = await launch();
  } catch (err) {
    runLock?.release();
    throw err;
  }
  if (stopRequested) return shutdown(stopRequested);
  const info = await readyInfo(emulator, options.auth, runLock);
  await announce(emulator, info, options, () => printBanner(emulator!));
  // A detached child tells the `start --detach` that spawned it, then lets it go.
  if (options.detachedChild && process.send) process.send(info, () => process.disconnect());
}
