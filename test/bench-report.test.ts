import { describe, expect, it } from 'vitest';
import { measure } from '../bench/lib/report.js';

// A row of `npm run bench` (bench/lib/report.js): its median, its rounds' spread and its verdict.
const row = (rounds: number[], referenceRounds: number[], reference: number) =>
  measure({
    id: 'x1',
    name: 'a ratio',
    unit: 'ms',
    value: 1.0,
    reference,
    referenceName: 'the floor',
    note: undefined,
    target: { on: 'ratio', op: '<', limit: 1.3 },
    rounds,
    referenceRounds,
  });

describe('a row of the bench', () => {
  it('states the spread of its rounds (each over its own reference) and is at the target where they straddle it', () => {
    const result = row([1.2, 0.76, 1.0], [0.8, 0.55, 0.8], 0.8);
    expect(result.ratio).toBe(1.25);
    expect(result.spread).toMatchObject({ on: 'ratio', rounds: 3 });
    expect(result.spread!.min).toBeCloseTo(1.25);
    expect(result.spread!.max).toBeCloseTo(1.5);
    expect(result.verdict).toBe('at the target');
    expect(result.holds).toBe(true);
  });

  it('refuses a reference that is not the median of its rounds (a sum of medians measured apart, say)', () => {
    // Each round's reference is a sum of two parts: the parts' medians may add up to 0.7 where the sums' median is
    // 0.8, and the ratio (1.43) then lies outside its rounds' spread (1.25-1.39).
    expect(() => row([1.1, 1.0, 0.9], [0.8, 0.8, 0.65], 0.7)).toThrow(
      'figure x1: its reference (0.7) is not the median of its rounds (0.8)',
    );
  });

  it('refuses a value that is not the median of its rounds', () => {
    expect(() => row([1.2, 1.1, 1.1], [0.8, 0.8, 0.8], 0.8)).toThrow('figure x1: its value (1) is not the median');
  });
});
