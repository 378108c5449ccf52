import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { writesInPlace } from '../../src/store/mutation-log.js';

/** The log as the emulator runs it (built by `npm test`'s pretest), in a process of its own. */
const LOG_MODULE = new URL('../../dist/store/mutation-log.js', import.meta.url).href;
const dirs: string[] = [];
const running: ResultPromise[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

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
      // The log is a FIFO that this test reads only once the log's process says its event loop still turns while
      // the write is under way: a write of more than the pipe holds cannot end before. Written on the main thread,
      // the log's process would never say so, and this test would fail by its timeout (it, not the log, waits).
      const dir = mkdtempSync(join(tmpdir(), 'platform-emu-write-placement-'));
      dirs.push(dir);
      const path = join(dir, 'mutations.jsonl');
      execFileSync('mkfifo', [path]);
      const bytes = 1024 * 1024 + 1;
      const script = `
        const { MutationLog } = await import(${JSON.stringify(LOG_MODULE)});
        const owner = { written: () => undefined, afterFlush: async () => undefined, lost: () => undefined };
        const log = await MutationLog.open(process.argv[1], 0, owner);
        let written = false;
        const appended = log.append('x'.repeat(${bytes - 1}) + '\\n', undefined, 2).then(() => (written = true));
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
        console.log(written ? 'written before the loop turned' : 'turning');
        await appended;
        await log.close();
        console.log('written');`;
      const child = execa('node', ['--input-type=module', '-e', script, path], { reject: false });
      running.push(child);
      const reader = createReadStream(path);
      reader.pause();
      const readerClosed = once(reader, 'close');
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      expect((await lines.next()).value).toBe('turning');
      let received = 0;
      reader.on('data', (chunk) => (received += chunk.length));
      reader.resume();
      expect((await lines.next()).value).toBe('written');
      expect((await child).exitCode).toBe(0);
      await readerClosed;
      expect(received).toBe(bytes);
    },
  );
});
