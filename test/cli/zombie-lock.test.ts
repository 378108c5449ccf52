import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setImmediate } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEmulatorLock } from '../../src/index.js';
import { assertBuilt, cli } from '../store/emulator-process.js';

assertBuilt();
const dir = mkdtempSync(join(tmpdir(), 'platform-emu-zombie-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a lock whose owner was killed and is not reaped yet (a zombie)', () => {
  it('is stale: the directory counts as free, and a start there is not refused', async () => {
    // A parent that never reaps its killed child, as a CI runner's shell may for a moment after `kill -9`.
    const parent = execa(
      'python3',
      ['-c', 'import os,sys,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)'],
      { reject: false, buffer: false },
    );
    const pid = await new Promise<number>((found) =>
      parent.stdout!.once('data', (chunk: Buffer) => found(Number(String(chunk).trim()))),
    );
    try {
      // Until the child has exited, it is a live process: wait for the kernel to show it as a zombie.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) await setImmediate();
      writeFileSync(
        join(dir, 'emulator.lock'),
        JSON.stringify({ pid, startedAt: new Date().toISOString(), url: 'http://127.0.0.1:9' }),
      );
      expect(readEmulatorLock(dir)).toBeUndefined();
      const started = await cli(['start', '--detach', '--port', '0', '--mqtt-port', '0', '--data-dir', dir]);
      expect(started.exitCode, started.stderr).toBe(0);
      expect((await cli(['stop', '--data-dir', dir])).exitCode).toBe(0);
    } finally {
      parent.kill('SIGKILL');
      await parent;
    }
  });
});
