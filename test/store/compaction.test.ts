import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-compaction-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

/** What a restart after `kill -9` would load: the files as they are now, read without the running store's help. */
async function afterCrash(dir: string): Promise<Store> {
  return Store.open({ dir, readOnly: true, warn: () => undefined });
}

describe('a compaction right after a series append', () => {
  it('writes a snapshot that holds every item its seq covers (nothing lives only in the emptied log)', async () => {
    const dir = freshDir();
    // Every batch passes the threshold: each one is followed by a compaction that empties the log.
    const store = await Store.open({ dir, compactBytes: 1, warn: () => undefined });
    try {
      for (let n = 0; n < 5; n++) {
        await store.append('points', 'meter', [[n, { n }]]);
        // The next write's answer comes after the compaction that followed the append (the log runs them in order).
        await store.put('things', `after-${n}`, { n });
        const recovered = await afterCrash(dir);
        expect(recovered.revision).toBeGreaterThanOrEqual(2 * n + 1);
        expect(
          recovered.getSeries('points', 'meter')?.length,
          `item ${n} after the compaction its append triggered`,
        ).toBe(n + 1);
        expect(recovered.get('things', `after-${n}`)).toEqual({ n });
      }
    } finally {
      await store.close();
    }
  });

  it('answers an append only once the item can be read, in the order the appends were made', async () => {
    const store = await Store.open({ dir: freshDir(), compactBytes: 1, warn: () => undefined });
    try {
      const seen: number[] = [];
      await Promise.all(
        [0, 1, 2].map((n) =>
          store.append('points', 'meter', [[n, { n }]]).then(() => {
            seen.push(store.getSeries('points', 'meter')!.length);
          }),
        ),
      );
      // One batch: all three items are in memory before any of the three answers.
      expect(seen).toEqual([3, 3, 3]);
    } finally {
      await store.close();
    }
  });
});

describe('files that hold state', () => {
  it('are readable by their owner only', async () => {
    const dir = freshDir();
    const store = await Store.open({ dir, compactBytes: 1, warn: () => undefined });
    await store.put('things', 'a', { secret: 'x' });
    await store.put('things', 'b', { secret: 'y' });
    await store.close();
    for (const file of ['state.json', 'mutations.jsonl'])
      expect((statSync(join(dir, file)).mode & 0o777).toString(8), file).toBe('600');
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).collections.things).toEqual({
      a: { secret: 'x' },
      b: { secret: 'y' },
    });
  });
});
