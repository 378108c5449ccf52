import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
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
        await store.put('things', `after-${n}`, { n });
        // The files as a compaction leaves them (read while one replaces them, they could be of two moments).
        await store.compacted();
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

describe('a compaction of a large state', () => {
  it('answers writes while its snapshot is written, and keeps their lines in the shortened log', async () => {
    const dir = freshDir();
    const store = await Store.open({ dir, compactBytes: 1, warn: () => undefined });
    try {
      const items = Array.from({ length: 300_000 }, (_, i): [number, unknown] => [i, { temperature: i % 40 }]);
      await store.append('points', 'meter', items);
      // That append's flush started a compaction of some 10 MB: a write made now is answered before it ends.
      const order: string[] = [];
      const compaction = store.compacted().then(() => order.push('compacted'));
      await store.put('things', 'during', { n: 1 }).then(() => order.push('written'));
      await compaction;
      expect(order).toEqual(['written', 'compacted']);

      const snapshot = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
      expect(snapshot.series.points.meter.t).toHaveLength(300_000);
      expect(snapshot.collections.things).toBeUndefined();
      const log = readFileSync(join(dir, 'mutations.jsonl'), 'utf8').trim().split('\n');
      expect(log.map((line) => JSON.parse(line))).toEqual([
        { s: snapshot.seq + 1, m: [{ op: 'put', c: 'things', id: 'during', v: { n: 1 } }] },
      ]);
      const recovered = await afterCrash(dir);
      expect(recovered.getSeries('points', 'meter')?.length).toBe(300_000);
      expect(recovered.get('things', 'during')).toEqual({ n: 1 });
    } finally {
      await store.close();
    }
  });
});

/** Opens the directory read-only `times` times in a process of its own, as the CLI does: what each open found. */
async function readOnlyOpens(
  dir: string,
  times: number,
): Promise<Array<{ revision?: number; count?: number; error?: string }>> {
  const script = `
    const { Store } = await import(${JSON.stringify(new URL('../../dist/store/index.js', import.meta.url).href)});
    for (let i = 0; i < ${times}; i++) {
      try {
        const store = await Store.open({ dir: process.argv[1], readOnly: true, warn: () => undefined });
        console.log(JSON.stringify({ revision: store.revision, count: store.count('things') }));
      } catch (err) {
        console.log(JSON.stringify({ error: err.message }));
      }
    }`;
  const { stdout } = await execa('node', ['--input-type=module', '-e', script, dir]);
  return stdout.split('\n').map((line) => JSON.parse(line));
}

describe('a read-only open beside a running store', () => {
  it('reads a whole state while compactions replace the snapshot and shorten the log', async () => {
    const dir = freshDir();
    const store = await Store.open({ dir, compactBytes: 1 << 30, warn: () => undefined });
    // A snapshot of some megabytes: a read-only open takes long enough to overlap several compactions.
    for (let batch = 0; batch < 20; batch++)
      await store.commit(
        Array.from({ length: 1000 }, (_, i) => ({ op: 'put' as const, c: 'filler', id: `f${batch}-${i}`, v: { i } })),
      );
    await store.close();
    // Now a compaction after every write or so: the files are replaced all the time.
    const running = await Store.open({ dir, compactBytes: 64, warn: () => undefined });
    let puts = 0;
    let stop = false;
    const writing = (async () => {
      while (!stop) {
        await running.put('things', `t${puts}`, { n: puts++ });
        // As requests arrive: a turn of the event loop between writes (a lone writer's write answers within one).
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    let opens;
    try {
      opens = await readOnlyOpens(dir, 40);
    } finally {
      stop = true;
      await writing;
      await running.close();
    }
    // Each open read a whole prefix of the writes: one put is one mutation, and every record is there.
    for (const open of opens) expect(open).toEqual({ revision: 20 + open.count!, count: expect.any(Number) });
    expect(new Set(opens.map((open) => open.revision)).size).toBeGreaterThan(1);
  });
});

describe('when the log is compacted without compactBytes', () => {
  const MiB = 1024 * 1024;
  const sizeOf = (path: string) => statSync(path).size;

  it('waits for 16 MiB of log or for as much log as the snapshot holds, whichever is more', async () => {
    const dir = freshDir();
    const snapshot = join(dir, 'state.json');
    const log = join(dir, 'mutations.jsonl');
    const putMiB = async (store: Store, prefix: string, count: number) => {
      for (let n = 0; n < count; n++) await store.put('blobs', `${prefix}-${n}`, { text: 'x'.repeat(MiB) });
      await store.compacted();
    };
    // A state of some 24 MiB: a clean stop writes it whole.
    const first = await Store.open({ dir, warn: () => undefined });
    await putMiB(first, 'first', 24);
    await first.close();
    const large = sizeOf(snapshot);
    expect(large).toBeGreaterThan(24 * MiB);

    const store = await Store.open({ dir, warn: () => undefined });
    try {
      // 20 MiB of log: past 16 MiB, short of the snapshot's size, so the snapshot is not rewritten.
      await putMiB(store, 'second', 20);
      expect(sizeOf(snapshot)).toBe(large);
      expect(sizeOf(log)).toBeGreaterThan(20 * MiB);
      // Past the snapshot's size: rewritten, with everything, and the log emptied of what it holds.
      await putMiB(store, 'third', 5);
      expect(sizeOf(snapshot)).toBeGreaterThan(44 * MiB);
      expect(sizeOf(log)).toBeLessThan(2 * MiB);
    } finally {
      await store.close();
    }
    const reopened = await afterCrash(dir);
    expect(reopened.get('blobs', 'second-19')).toEqual({ text: 'x'.repeat(MiB) });
  });
});
