import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Series, Store, type SeriesItem } from '../../src/store/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-series-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

const values = (series: Series) => Array.from({ length: series.length }, (_, i) => series.valueAt(i));
const times = (series: Series) => Array.from({ length: series.length }, (_, i) => series.timeAt(i));

describe('a series', () => {
  it('keeps items sorted by time, one per time (the later one wins)', () => {
    const series = new Series();
    for (const [time, value] of [
      [30, 'c'],
      [10, 'a'],
      [20, 'b'],
      [40, 'd'],
      [20, 'B'],
      [5, 'first'],
    ] as const)
      series.insert(time, value);
    expect(times(series)).toEqual([5, 10, 20, 30, 40]);
    expect(values(series)).toEqual(['first', 'a', 'B', 'c', 'd']);
  });

  it('finds bounds by binary search', () => {
    const series = new Series([10, 20, 20.5, 30], ['a', 'b', 'c', 'd']);
    expect([series.lowerBound(20), series.upperBound(20)]).toEqual([1, 2]);
    expect([series.lowerBound(0), series.upperBound(0)]).toEqual([0, 0]);
    expect([series.lowerBound(99), series.upperBound(30)]).toEqual([4, 4]);
    expect(series.lowerBound(25)).toBe(3);
  });
});

describe('the store keeps series through its log and snapshot', () => {
  const items = (from: number, count: number): SeriesItem[] =>
    Array.from({ length: count }, (_, i) => [from + i, { n: from + i }]);

  it('logs only the appended items, never the series so far, and replays them', async () => {
    const dir = freshDir();
    const store = await Store.open({ dir, warn: () => undefined });
    for (let batch = 0; batch < 100; batch++) await store.append('points', 'a', items(batch * 1000, 1000));
    const before = statSync(join(dir, 'mutations.jsonl')).size;
    await store.append('points', 'a', [[1e9, 'one more']]);
    const lastLine = statSync(join(dir, 'mutations.jsonl')).size - before;
    expect(lastLine).toBeLessThan(100);

    // What a kill would leave: the log only, replayed by the next start.
    const copy = freshDir();
    mkdirSync(copy);
    copyFileSync(join(dir, 'mutations.jsonl'), join(copy, 'mutations.jsonl'));
    await store.close();
    const reopened = await Store.open({ dir: copy, warn: () => undefined });
    const series = reopened.getSeries('points', 'a')!;
    expect(series.length).toBe(100_001);
    expect(series.valueAt(series.length - 1)).toBe('one more');
    expect(series.valueAt(series.lowerBound(54_321))).toEqual({ n: 54_321 });
    await reopened.close();
  });

  it('appends to several series in one mutation (`appends`), and replays it', async () => {
    const dir = freshDir();
    const store = await Store.open({ dir, warn: () => undefined });
    await store.append('points', 'a', [[1, 'old']]);
    await store.commit([
      {
        op: 'appends',
        c: 'points',
        v: [
          ['a', [[2, 'a2']]],
          ['__proto__/x', [[1, 'odd id']]],
          ['a', [[1, 'new']]],
        ],
      },
    ]);
    const lastLine = readFileSync(join(dir, 'mutations.jsonl'), 'utf8').trim().split('\n').at(-1)!;
    expect(lastLine.match(/"points"/g)).toHaveLength(1);
    expect(values(store.getSeries('points', 'a')!)).toEqual(['new', 'a2']);

    const copy = freshDir();
    mkdirSync(copy);
    copyFileSync(join(dir, 'mutations.jsonl'), join(copy, 'mutations.jsonl'));
    await store.close();
    const reopened = await Store.open({ dir: copy, warn: () => undefined });
    expect(values(reopened.getSeries('points', 'a')!)).toEqual(['new', 'a2']);
    expect(values(reopened.getSeries('points', '__proto__/x')!)).toEqual(['odd id']);
    await reopened.close();
  });

  it('refuses an `appends` whose entries are not [id, items] pairs, and changes nothing', async () => {
    const store = await Store.open({ dir: freshDir(), warn: () => undefined });
    const refused = async (v: unknown) => {
      const commit = store.commit([{ op: 'appends', c: 'points', v } as never]);
      await expect(commit).rejects.toThrow(/points/);
    };
    await refused({ a: [[1, 'x']] });
    await refused([['a']]);
    await refused([['__proto__', [[1, 'x']]]]);
    await refused([['a', [['not a time', 'x']]]]);
    await refused([
      ['a', [[1, 'x']]],
      [7, [[1, 'y']]],
    ]);
    expect(store.getSeries('points', 'a')).toBeUndefined();
    await store.close();
  });

  it('writes series into state.json as { t, v } and reads them back', async () => {
    const dir = freshDir();
    const store = await Store.open({ dir, compactBytes: 1, warn: () => undefined });
    await store.put('things', 'x', { id: 'x' });
    await store.append('points', 'b', [
      [2, null],
      [1, 'one'],
    ]);
    await store.close();
    const snapshot = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
    expect(snapshot.series).toEqual({ points: { b: { t: [1, 2], v: ['one', null] } } });
    const reopened = await Store.open({ dir, warn: () => undefined });
    expect(values(reopened.getSeries('points', 'b')!)).toEqual(['one', null]);
    await reopened.append('points', 'b', [[3, 3]]);
    expect(times(reopened.getSeries('points', 'b')!)).toEqual([1, 2, 3]);
    await reopened.close();
  });

  it('exports a copy and replaces from a document', async () => {
    const store = await Store.open({ inMemory: true });
    await store.append('points', 'c', [[1, 1]]);
    const document = store.exportDocument();
    await store.append('points', 'c', [[2, 2]]);
    expect(document.series).toEqual({ points: { c: { t: [1], v: [1] } } });
    await store.replace(document);
    expect(store.getSeries('points', 'c')!.length).toBe(1);
  });

  it('refuses to start on an append line that is not a list of [time, value]', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'mutations.jsonl'),
      `${JSON.stringify({ s: 1, m: [{ op: 'append', c: 'points', id: 'a', v: [['noon', 1]] }] })}\n`,
    );
    await expect(Store.open({ dir, warn: () => undefined })).rejects.toThrow(/line 1 is unreadable/);
    expect(existsSync(join(dir, 'mutations.jsonl'))).toBe(true);
  });

  it('refuses a snapshot whose series times are out of order', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({
        schemaVersion: 1,
        seq: 0,
        counters: {},
        collections: {},
        series: { points: { a: { t: [2, 1], v: [0, 0] } } },
      }),
    );
    await expect(Store.open({ dir, warn: () => undefined })).rejects.toThrow(
      /series.points\["a"\].t\[1\] must be a number/,
    );
  });
});

describe('importing a state document with series', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('keeps the points of a series collection a service declares', async () => {
    await call('PUT', '/epts/api/v1/applications/smart-meter/time-series/data', {
      body: { 'meter-001': { voltage: [{ timestamp: '2024-01-01T00:00:00Z', values: { value: 1 } }] } },
    });
    const exported = (await call('GET', '/_emu/state')).body;
    expect(exported.series['time-series-points']['meter-001/voltage']).toEqual({
      t: [Date.parse('2024-01-01T00:00:00Z')],
      v: [1],
    });
    await call('POST', '/_emu/reset');
    expect((await call('PUT', '/_emu/state', { body: exported })).status).toBe(204);
    const last = await call(
      'GET',
      '/epts/api/v1/applications/smart-meter/time-series/last?endpointId=meter-001&timeSeriesName=voltage',
    );
    expect(last.body['meter-001'].voltage).toEqual([{ timestamp: '2024-01-01T00:00:00.000Z', values: { value: 1 } }]);
  });

  it.each([
    [{ nope: {} }, /unknown series collection "nope"/],
    [{ 'time-series-points': { a: { t: [1, 2], v: [1] } } }, /as many values as times/],
    [[], /series must be an object/],
  ])('refuses bad series with 400 and changes nothing', async (series, message) => {
    const exported = (await call('GET', '/_emu/state')).body;
    const response = await call('PUT', '/_emu/state', { body: { ...exported, series } });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });
});
