import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

const SIMULATE = '/asf/api/v1/_ingest/pipeline/simulate/';
const TIME_LIMIT = /^the simulation took longer than 1000 ms, the emulator's limit$/;
const CAPPED = /a list or map grew past 100000 elements, the emulator's limit/;

/**
 * The large values come in the document (a body limit of 16 MiB lets them), so that nothing but the call under test
 * is slow, and each test holds on a fast or a busy machine alike.
 */
const bigMap = (entries: number) => Object.fromEntries(Array.from({ length: entries }, (_, i) => [`k${i}`, i]));
/** `ctx.big` held 10,000 times in one list, and a copy of it that differs only in its last entry. */
const LIST_OF_MAPS =
  "def copy = new HashMap(ctx.big); copy.put('k39999', -1); def l = []; for (int i = 0; i < 10000; i++) { " +
  'l.add(ctx.big) } ';

/** The analytics facade's budgets hold inside every collection method and processor, not only between statements. */
describe('analytics facade: budgets inside methods and processors', async () => {
  const emulator = await startTestEmulator({ bodyLimit: 16 * 1024 * 1024 });
  const call = api(emulator);
  type Failure = {
    type: string;
    reason: string;
    processor_type?: string;
    caused_by?: { type: string; reason: string };
  };
  const simulate = async (processors: unknown[], source: Record<string, unknown> = {}) => {
    const response = await call('POST', SIMULATE, { body: { pipeline: { processors }, docs: [{ _source: source }] } });
    expect(response.status, response.text).toBe(200);
    return response.body.docs[0] as { doc?: unknown; error?: Failure };
  };

  it.each([
    ['contains', 'l.contains(copy)'],
    ['indexOf', 'l.indexOf(copy)'],
    ['lastIndexOf', 'l.lastIndexOf(copy)'],
    ['remove', 'l.remove(copy)'],
  ])('one %s call over a large list of large maps stops at the time limit', async (_name, call) => {
    // 10,000 comparisons of 40,000 entries each: minutes without a check inside the call.
    const result = await simulate([{ script: { source: LIST_OF_MAPS + call } }], { big: bigMap(40_000) });
    // Inside the script (script_exception caused by it), or before a processor when the machine is very busy.
    expect(result.error?.caused_by ?? result.error).toMatchObject({
      type: 'circuit_breaking_exception',
      reason: expect.stringMatching(TIME_LIMIT),
    });
  });

  it('an append without duplicates onto a long list stops at the time limit', async () => {
    const list = Array.from({ length: 80_000 }, (_, i) => i);
    const values = Array.from({ length: 19_000 }, (_, i) => `v${i}`);
    const result = await simulate([{ append: { field: 'list', value: values, allow_duplicates: false } }], { list });
    expect(result.error).toMatchObject({
      type: 'circuit_breaking_exception',
      reason: expect.stringMatching(TIME_LIMIT),
      processor_type: 'append',
    });
  });

  it('lists and maps stop at 100,000 elements, strings at 1,000,000 characters, before they are built', async () => {
    expect(
      (await simulate([{ script: { source: 'def l = [1]; while (true) { l.addAll(l) }' } }])).error?.caused_by?.reason,
    ).toMatch(CAPPED);
    expect(
      (await simulate([{ script: { source: 'ctx.list.add(1)' } }], { list: Array.from({ length: 100_000 }, () => 0) }))
        .error?.caused_by?.reason,
    ).toMatch(CAPPED);
    expect(
      (await simulate([{ script: { source: "ctx.big.put('one-more', 1)" } }], { big: bigMap(100_000) })).error
        ?.caused_by?.reason,
    ).toMatch(CAPPED);
    const values = Array.from({ length: 60_000 }, (_, i) => i);
    expect(
      (await simulate([{ append: { field: 'l', value: values } }, { append: { field: 'l', value: values } }])).error
        ?.reason,
    ).toMatch(CAPPED);
    // 1,000 characters, each replaced by 2,000: a string of 2,000,000 characters is never made.
    const replaced = await simulate([{ script: { source: "ctx.s.replace('a', ctx.s + ctx.s)" } }], {
      s: 'a'.repeat(1000),
    });
    expect(replaced.error?.caused_by?.reason).toMatch(/a string grew longer than 1000000 characters/);
  });
});

describe('analytics facade: the inline simulation with --auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on', bodyLimit: 16 * 1024 * 1024 });
  const call = api(emulator);

  it('needs no token (the spec lists no scope) and gets a tenth of the time budget', async () => {
    const body = {
      pipeline: { processors: [{ script: { source: LIST_OF_MAPS + 'l.contains(copy)' } }] },
      docs: [{ _source: { big: bigMap(40_000) } }],
    };
    const response = await call('POST', SIMULATE, { body });
    expect(response.status, response.text).toBe(200);
    const error = response.body.docs[0].error;
    expect(error.caused_by ?? error).toMatchObject({
      type: 'circuit_breaking_exception',
      reason: "the simulation took longer than 100 ms, the emulator's limit",
    });
    const cheap = await call('POST', SIMULATE, {
      body: { pipeline: { processors: [{ set: { field: 'a', value: 1 } }] }, docs: [{ _source: {} }] },
    });
    expect(cheap.body.docs[0].doc._source).toEqual({ a: 1 });
  });
});
