import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { services } from '../../src/services/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
// Plain JavaScript, shared with the recorder (test/helpers/record-route-answers.mjs).
import { answerOf } from '../helpers/route-answers.mjs';
import { routeCases } from '../helpers/route-cases.mjs';

interface Recorded {
  method: string;
  path: string;
  body?: string;
  status: number;
  allow: string | null;
  contentType: string | null;
  contentLength: string | null;
  answer: string | null;
  varies?: boolean;
}

/** Recorded with express's router (one express Route per table entry), before the compiled matcher replaced it. */
const recorded = JSON.parse(
  readFileSync(new URL('./route-answers.express.json', import.meta.url), 'utf8'),
) as Recorded[];

describe('the compiled route matcher answers as express routing did', () => {
  it(
    'covers the route tables: prefixed and bare, wrong methods, HEAD, OPTIONS, encoded, ' +
      'trailing and doubled slashes',
    () => {
      const key = (c: { method: string; path: string }) => `${c.method} ${c.path}`;
      const today = new Set((routeCases(services) as Recorded[]).map(key));
      // Every recorded case is still a case of today's tables (routes added since are not in the recording).
      expect(recorded.filter((c) => !today.has(key(c))).map(key)).toEqual([]);
      expect(recorded.length).toBeGreaterThanOrEqual(600);
      const kinds = (predicate: (c: Recorded) => boolean) => recorded.filter(predicate).length;
      expect(kinds((c) => c.status === 405)).toBeGreaterThan(50);
      expect(kinds((c) => c.method === 'HEAD')).toBeGreaterThan(20);
      expect(kinds((c) => c.method === 'OPTIONS' && c.status === 200)).toBeGreaterThan(50);
      expect(kinds((c) => c.path.startsWith('/api/v1/'))).toBeGreaterThan(20);
      expect(kinds((c) => c.path.includes('%E0') && c.status === 400)).toBeGreaterThan(20);
      expect(kinds((c) => c.path.includes('//'))).toBeGreaterThan(20);
    },
  );

  it('gives the same status, Allow, Content-Type, length and bytes on every recorded case', async () => {
    const emulator = await startTestEmulator({ auth: 'off' });
    const differences: string[] = [];
    for (const c of recorded) {
      const now = await answerOf(emulator.url, c);
      const expected = c.varies
        ? { status: c.status, allow: c.allow, contentType: c.contentType }
        : {
            status: c.status,
            allow: c.allow,
            contentType: c.contentType,
            contentLength: c.contentLength,
            answer: c.answer,
          };
      const actual = c.varies ? { status: now.status, allow: now.allow, contentType: now.contentType } : now;
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        differences.push(`${c.method} ${c.path}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`);
    }
    expect(differences).toEqual([]);
  }, 60_000);
});
