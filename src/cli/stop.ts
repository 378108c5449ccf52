import { Command, Option } from 'commander';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessRunning, readEmulatorLock, type EmulatorLock } from '../client/emulator-lock.js';
import { CliError, dataOption, parsePositiveInt } from './shared.js';

interface StopOptions {
  data: string;
  timeout: number;
}

const POLL_MS = 50;

const isRunning = isProcessRunning;

/**
 * A lock's pid is only signalled when the emulator at the lock's URL says it is that pid: a lock left by a crash
 * may name a pid the system has since given to an unrelated process.
 */
async function confirmEmulator(lock: EmulatorLock, dir: string): Promise<void> {
  if (!lock.url) return; // still starting: it has not written its URL yet
  const { EmulatorClient } = await import('../client/http-client.js');
  // Any answer of the health route counts (503 too: a failing emulator must still stop), if it names the same pid.
  const pid = await new EmulatorClient(lock.url).request('GET', '/_emu/health', { timeoutMs: 2000 }).then(
    (response) => (response.json as { pid?: unknown } | undefined)?.pid,
    () => null,
  );
  if (pid === lock.pid) return;
  throw new CliError(
    `The lock of ${dir} names pid ${lock.pid} at ${lock.url}, but no emulator with that pid answers there. ` +
      `If pid ${lock.pid} is not an emulator, delete ${join(dir, 'emulator.lock')}.`,
  );
}

async function run(options: StopOptions): Promise<void> {
  const dir = resolve(options.data);
  const lock = readEmulatorLock(dir);
  if (!lock) {
    process.stderr.write(`No emulator is running on ${dir}.\n`);
    return;
  }
  await confirmEmulator(lock, dir);
  process.kill(lock.pid, 'SIGTERM');
  const deadline = Date.now() + options.timeout * 1000;
  while (isRunning(lock.pid) || readEmulatorLock(dir)) {
    if (Date.now() > deadline) {
      throw new CliError(
        `The emulator (pid ${lock.pid}) is still running ${options.timeout} s after SIGTERM; \`kill -9 ` +
          `${lock.pid}\` ends it (nothing it acknowledged is lost).`,
      );
    }
    await sleep(POLL_MS);
  }
  process.stderr.write(`Stopped the emulator (pid ${lock.pid}) on ${dir}.\n`);
}

export function stopCommand(): Command {
  return new Command('stop')
    .description(
      'Stop the emulator that holds a data directory (one started with --detach, or in another terminal): ' +
        'SIGTERM, then wait until it is gone.',
    )
    .addOption(dataOption())
    .addOption(
      new Option('--timeout <seconds>', 'how long to wait for it to finish').default(30).argParser(parsePositiveInt),
    )
    .addHelpText(
      'after',
      `
The emulator finishes its requests, writes its state (and --export-on-exit, if it was given) and releases the
data directory before this returns. Exit 0 also when nothing runs there; 1 when it does not stop in time.

Examples:
  $ platform-emu stop
  $ platform-emu stop --data-dir /tmp/emu --timeout 60`,
    )
    .action(run);
}
