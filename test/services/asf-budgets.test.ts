import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

const SIMULATE = '/asf/api/v1/_ingest/pipeline/simulate/';
const TIME_LIMIT = /^the simulation took longer than 1000 ms, the emulator's limit$/;

/** A map of 50,000 entries held 10,000 times in one list, and a copy that differs only in its last entry. */
const BIG_LIST_OF_MAPS =
  "def big = [:]; for (int i = 0; i < 50000; i++) { big.put('k' + i, i) } " +
  "def copy = new HashMap(big); copy.put('k49999', -1); " +
  'def l = []; for (int i = 0; i < 10000; i++) { l.add(big) } ';

/** The analytics facade's budgets hold inside every collection method and processor, not only between statements. */
describe('analytics facade: budgets inside methods and processors', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const simulate = async (processors: unknown[], source: Record<string, unknown> = {}) => {
    const response = await call('POST', SIMULATE, { body: { pipeline: { processors }, docs: [{ _source: source }] } });
    expect(response.status, response.text).toBe(200);
    return response.body.docs[0] as {
      doc?: unknown;
      error?: { type: string; reason: string; processor_type?: string; caused_by?: { type: string; reason: string } };
    };
  };

  it.each([
    ['contains', 'l.contains(copy)'],
    ['indexOf', 'l.indexOf(copy)'],
    ['remove', 'l.remove(copy)'],
  ])('one %s call over a large list of large maps stops at the time limit', async (_name, call) => {
    const result = await simulate([{ script: { source: BIG_LIST_OF_MAPS + call } }]);
    expect(result.error?.caused_by).toMatchObject({
      type: 'circuit_breaking_exception',
      reason: expect.stringMatching(TIME_LIMIT),
    });
  });

  it('an append without duplicates onto a list a script grew stops at the time limit', async () => {
    const grow = { script: { source: 'ctx.list = []; for (int i = 0; i < 80000; i++) { ctx.list.add(i) }' } };
    const values = Array.from({ length: 19_000 }, (_, i) => `v${i}`);
    const result = await simulate([grow, { append: { field: 'list', value: values, allow_duplicates: false } }]);
    expect(result.error).toMatchObject({
      type: 'circuit_breaking_exception',
      reason: expect.stringMatching(TIME_LIMIT),
      processor_type: 'append',
    });
  });

  it('lists and maps stop at 100,000 elements, strings at 1,000,000 characters, before they are built', async () => {
    const capped = /a list or map grew past 100000 elements, the emulator's limit/;
    expect(
      (await simulate([{ script: { source: 'def l = []; while (true) { l.add(1) }' } }])).error?.caused_by?.reason,
    ).toMatch(capped);
    expect(
      (await simulate([{ script: { source: "def m = [:]; for (int i = 0; ; i++) { m.put('k' + i, i) }" } }])).error
        ?.caused_by?.reason,
    ).toMatch(capped);
    const values = Array.from({ length: 60_000 }, (_, i) => i);
    expect(
      (await simulate([{ append: { field: 'l', value: values } }, { append: { field: 'l', value: values } }])).error
        ?.reason,
    ).toMatch(capped);
    // 1,000 characters replaced 1,000 times each by 2,000: a string of 2,000,000 characters is never made.
    const replace =
      "String s = 'a'; for (int i = 0; i < 1000; i++) { s = s + 'a' } String b = s + s; s.replace('a', b)";
    expect((await simulate([{ script: { source: replace } }])).error?.caused_by?.reason).toMatch(
      /a string grew longer than 1000000 characters/,
    );
  });
});

describe('analytics facade: the inline simulation with --auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);

  it('needs no token (the spec lists no scope) and gets a tenth of the time budget', async () => {
    const response = await call('POST', SIMULATE, {
      body: {
        pipeline: { processors: [{ script: { source: BIG_LIST_OF_MAPS + 'l.contains(copy)' } }] },
        docs: [{ _source: {} }],
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.docs[0].error.caused_by).toMatchObject({
      type: 'circuit_breaking_exception',
      reason: "the simulation took longer than 100 ms, the emulator's limit",
    });
    const cheap = await call('POST', SIMULATE, {
      body: { pipeline: { processors: [{ set: { field: 'a', value: 1 } }] }, docs: [{ _source: {} }] },
    });
    expect(cheap.body.docs[0].doc._source).toEqual({ a: 1 });
  });
});
