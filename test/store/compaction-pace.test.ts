import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-compaction-pace-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

/** A store whose next flush compacts a state of some 10 MB: 300,000 points of one series. */
async function compactingStore(): Promise<Store> {
  const store = await Store.open({ dir: join(root, `d${++dirs}`), compactBytes: 1, warn: () => undefined });
  const items = Array.from({ length: 300_000 }, (_, i): [number, unknown] => [i, { temperature: i % 40 }]);
  await store.append('points', 'meter', items);
  return store;
}

/** The share of the time from now to `done` that this thread's event loop spent running code, not waiting. */
async function busyShare(done: Promise<unknown>): Promise<number> {
  const from = performance.eventLoopUtilization();
  await done;
  return performance.eventLoopUtilization(from).utilization;
}

describe('a compaction', () => {
  it('leaves most of the main thread to requests while it writes its snapshot', async () => {
    const store = await compactingStore();
    try {
      // Making the snapshot's text is the thread's only work here: unpaced, it kept the loop busy 0.96 of the time;
      // paced, 0.35-0.41, with a busy loop on each core beside it.
      expect(await busyShare(store.compacted())).toBeLessThan(0.6);
    } finally {
      await store.close();
    }
  });

  it('goes at full speed once a stop waits for it', async () => {
    const store = await compactingStore();
    // The stop (which writes the snapshot itself once the compaction is done) waits only for the disk now: busy
    // 0.64-0.90 of the time with a busy loop on each core beside it, where the pace would hold it near 0.4.
    expect(await busyShare(store.close())).toBeGreaterThan(0.5);
  });
});
