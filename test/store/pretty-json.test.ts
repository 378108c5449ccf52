import { describe, expect, it } from 'vitest';
import { prettyJsonPieces } from '../../src/store/pretty-json.js';

const text = (value: unknown) => [...prettyJsonPieces(value)].join('');

/** An own `__proto__` key, as ids from the data can be (a plain assignment would set the prototype). */
function withProtoKey(value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { before: 1 };
  Object.defineProperty(out, '__proto__', { value, enumerable: true, writable: true, configurable: true });
  out.after = 2;
  return out;
}

describe('the snapshot written in pieces', () => {
  it('is the text of JSON.stringify(value, null, 1), whatever the shape', () => {
    const record = (i: number) => ({
      id: `r${i}`,
      n: i,
      tags: ['a', 'b'],
      meta: { nested: { deep: [i, { x: null }] } },
    });
    const document = {
      schemaVersion: 1,
      seq: 42,
      counters: {},
      collections: {
        empty: {},
        things: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`r${i}`, record(i)])),
        numbered: { 10: { a: 1 }, 2: { b: [] }, x: { c: '' } },
        odd: withProtoKey({ constructor: 'c', toString: 's' }),
        strings: { s: { text: 'line\nbreak "quoted" \\ back, unicode é ✓ \u2028', empty: '' } },
        deep: { d: { a: { b: { c: { d: { e: [[1, [2, [3]]]] } } } } } },
      },
      series: {
        points: {
          long: {
            t: Array.from({ length: 10_000 }, (_, i) => i * 1000),
            v: Array.from({ length: 10_000 }, (_, i) => ({ temperature: i / 10 })),
          },
          atSlice: { t: Array.from({ length: 4096 }, (_, i) => i), v: Array.from({ length: 4096 }, () => null) },
          pastSlice: {
            t: Array.from({ length: 4097 }, (_, i) => i),
            v: Array.from({ length: 4097 }, (_, i) => [i, 'x\ny']),
          },
          short: { t: [1], v: [true] },
          none: { t: [], v: [] },
        },
      },
    };
    expect(text(document)).toBe(JSON.stringify(document, null, 1));
    for (const value of [
      null,
      0,
      'x',
      [],
      {},
      [Array.from({ length: 9000 }, (_, i) => i)],
      { a: Array(5000).fill({}) },
    ])
      expect(text(value)).toBe(JSON.stringify(value, null, 1));
  });

  it('comes in many pieces for a large state, none of them the whole', () => {
    const points = { t: Array.from({ length: 100_000 }, (_, i) => i), v: Array.from({ length: 100_000 }, (_, i) => i) };
    const pieces = [...prettyJsonPieces({ series: { points: { meter: points } } })];
    const longest = Math.max(...pieces.map((piece) => piece.length));
    expect(pieces.length).toBeGreaterThan(40);
    expect(longest).toBeLessThan(pieces.join('').length / 20);
  });
});
