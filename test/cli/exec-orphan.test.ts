import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isProcessRunning } from '../../src/store/lock.js';
import { assertBuilt, BIN } from '../store/emulator-process.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-orphan-'));
beforeAll(() => assertBuilt());
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Resolves once `check` holds, looking every 100 ms; fails after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it(
  'exec ends the command it runs when its parent dies without passing a signal on (npx on a ' + 'cancelled job)',
  async () => {
    const pidFile = join(root, 'pids');
    // The parent: a wrapper that starts exec and forwards nothing, as npm's does.
    const wrapper = execa(
      process.execPath,
      [
        '-e',
        "require('node:child_process').spawn(process.execPath, process.argv.slice(1), { stdio: 'ignore' }); " +
          'setInterval(() => {}, 1e6);',
        BIN,
        'exec',
        '--',
        'sh',
        '-c',
        `echo "$$ $PPID" > ${JSON.stringify(pidFile)}.tmp && ` +
          `mv ${JSON.stringify(pidFile)}.tmp ${JSON.stringify(pidFile)} && exec sleep 300`,
      ],
      { reject: false },
    );
    await until(() => existsSync(pidFile), 60_000, 'the command to start');
    const [command, exec] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    expect(isProcessRunning(command)).toBe(true);

    wrapper.kill('SIGKILL');
    await wrapper;
    await until(() => !isProcessRunning(command), 20_000, 'the command to end');
    await until(() => !isProcessRunning(exec), 20_000, 'exec to stop its emulator and exit');
  },
  120_000,
);
