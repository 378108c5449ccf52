import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MutationLog, writesInPlace } from '../../src/store/mutation-log.js';

const owner = { written: () => undefined, afterFlush: async () => undefined, lost: () => undefined };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const turnsOfTheEventLoop = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('where the mutation log writes a batch', () => {
  it('on the main thread only for a lone writer, and only while the disk answers within 1 ms', () => {
    expect(writesInPlace(1, false, 0.2)).toBe(true);
    // A slow last write sends the next to the thread pool; a fast one there brings them back.
    expect(writesInPlace(1, false, 1.5)).toBe(false);
    // Several writers at once last time: their next batch gathers for a turn and goes to the thread pool.
    expect(writesInPlace(1, true, 0.2)).toBe(false);
    // One append that five requests wait for (a batch of a fleet's samples).
    expect(writesInPlace(5, false, 0.2)).toBe(false);
  });

  it.skipIf(process.platform === 'win32')(
    'never holds the event loop for an append several requests wait for, however long its write takes',
    async () => {
      // The log is a FIFO: a write of more than the pipe holds cannot end until this test reads, which only an event
      // loop that still turns can do. Written on the main thread, it would hold this test forever.
      const dir = mkdtempSync(join(tmpdir(), 'platform-emu-write-placement-'));
      dirs.push(dir);
      const path = join(dir, 'mutations.jsonl');
      execFileSync('mkfifo', [path]);
      const reader = createReadStream(path);
      reader.pause();
      const log = await MutationLog.open(path, 0, owner);
      const line = `${'x'.repeat(1024 * 1024)}\n`;
      let written = false;
      const appended = log.append(line, undefined, 2).then(() => (written = true));
      await turnsOfTheEventLoop(20);
      expect(written).toBe(false);
      let received = 0;
      reader.on('data', (chunk) => (received += chunk.length));
      reader.resume();
      await appended;
      expect(log.bytes).toBe(line.length);
      await log.close();
      await new Promise<void>((resolve) => reader.on('close', () => resolve()));
      expect(received).toBe(line.length);
    },
  );
});
