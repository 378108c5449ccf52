import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';

// vitest.config.ts runs the suite with PLATFORM_EMU_DEEP_FREEZE=1: stored values frozen at every level.
describe('stored values', () => {
  it('are frozen at every level under the test suite, so code that changes one in place fails', async () => {
    expect(process.env.PLATFORM_EMU_DEEP_FREEZE).toBe('1');
    const store = await Store.open({ inMemory: true });
    await store.put('things', 'a', { nested: { n: 1 }, list: [{ m: 1 }] });
    await store.append('points', 'a', [[1, { reading: { value: 1 } }]]);
    const record = store.get<{ nested: { n: number }; list: Array<{ m: number }> }>('things', 'a')!;
    expect(() => (record.nested.n = 2)).toThrow(TypeError);
    expect(() => record.list.push({ m: 2 })).toThrow(TypeError);
    expect(() => (record.list[0].m = 2)).toThrow(TypeError);
    const point = store.getSeries('points', 'a')!.valueAt(0) as { reading: { value: number } };
    expect(() => (point.reading.value = 2)).toThrow(TypeError);
    expect(store.get('things', 'a')).toEqual({ nested: { n: 1 }, list: [{ m: 1 }] });
  });
});
