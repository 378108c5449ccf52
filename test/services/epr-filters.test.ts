import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { fixtureFile } from '../helpers/fixture-file.js';

const EPR = '/epr/api/v1';

const endpoint = (endpointId: string, metadata: Record<string, unknown>) => ({
  endpointId,
  appVersion: 'app-v1',
  token: `${endpointId}-token`,
  metadata,
});
const filter = (filterId: string, match: Record<string, unknown>, status = 'ACTIVE') => ({
  applicationName: 'app',
  filterId,
  status,
  match,
});

/** Every operator of docs/fixtures.md over a few endpoints, each filter matching a known set of them. */
const fixture = {
  tenants: [{ id: 't1', realm_name: 't1' }],
  applications: [{ tenantId: 't1', name: 'app', versions: [{ name: 'app-v1' }] }],
  endpoints: [
    endpoint('e1', { model: 'm1', level: 3, serial: 'SN-100', site: { city: 'Berlin' } }),
    endpoint('e2', { model: 'm2', level: 7, serial: 'SN-200', site: { city: 'Munich' }, flag: null }),
    endpoint('e3', { model: 'M1', level: '5', serial: 'sn-300' }),
    endpoint('e4', {}),
  ],
  endpointFilters: [
    filter('eq-plain', { model: 'm1' }),
    filter('eq-object', { site: { city: 'Berlin' } }),
    filter('eq-op', { model: { $eq: 'm2' } }),
    filter('ne', { model: { $ne: 'm1' } }),
    filter('in', { model: { $in: ['m1', 'M1'] } }),
    filter('in-object', { site: { $in: [{ city: 'Munich' }, 'x'] } }),
    filter('nin', { model: { $nin: ['m1', 'm2'] } }),
    filter('exists', { site: { $exists: true } }),
    filter('not-exists', { site: { $exists: false } }),
    filter('range', { level: { $gt: 2, $lte: 7 } }),
    filter('lt-string', { serial: { $lt: 'SN-200' } }),
    filter('gte-string', { serial: { $gte: 'SN-200' } }),
    filter('regex', { serial: { $regex: '^SN-[12]' } }),
    filter('null', { flag: null }),
    filter('two-keys', { model: 'm1', level: 3 }),
    filter('inactive', { model: 'm1' }, 'INACTIVE'),
  ],
};

describe('endpoint filters: matching', async () => {
  const emulator = await startTestEmulator({ fixtures: fixtureFile(fixture) });
  const call = api(emulator);
  const matching = async (filterId: string) =>
    (await call('GET', `${EPR}/endpoints?filterId=${filterId}`)).body.content.map((e: any) => e.endpointId);

  it.each([
    ['eq-plain', ['e1']],
    ['eq-object', ['e1']],
    ['eq-op', ['e2']],
    ['ne', ['e2', 'e3', 'e4']],
    ['in', ['e1', 'e3']],
    ['in-object', ['e2']],
    ['nin', ['e3', 'e4']],
    ['exists', ['e1', 'e2']],
    ['not-exists', ['e3', 'e4']],
    // Operands compare only with values of their own type: "5" is not in a numeric range.
    ['range', ['e1', 'e2']],
    ['lt-string', ['e1']],
    ['gte-string', ['e2', 'e3']],
    ['regex', ['e1', 'e2']],
    ['null', ['e2']],
    ['two-keys', ['e1']],
    ['inactive', []],
  ])('filterId=%s selects %j', async (filterId, expected) => {
    expect(await matching(filterId)).toEqual(expected);
  });

  it('include=filters names the active filters each endpoint matches, in the order of their ids', async () => {
    const listed = (await call('GET', `${EPR}/endpoints?applicationName=app&include=filters`)).body.content;
    const filtersOf = Object.fromEntries(listed.map((e: any) => [e.endpointId, e.filters]));
    expect(filtersOf.e1).toEqual(['eq-object', 'eq-plain', 'exists', 'in', 'lt-string', 'range', 'regex', 'two-keys']);
    expect(filtersOf.e4).toEqual(['ne', 'nin', 'not-exists']);
  });

  it('include=filters follows each write of the metadata, read after read (the list and one endpoint)', async () => {
    const filtersOfE4 = async () => {
      const listed = (await call('GET', `${EPR}/endpoints?endpointId=e4&include=filters`)).body.content[0].filters;
      const one = (await call('GET', `${EPR}/endpoints/e4?include=filters`)).body.filters;
      expect(one).toEqual(listed);
      return listed;
    };
    const before = ['ne', 'nin', 'not-exists'];
    expect(await filtersOfE4()).toEqual(before);
    expect(await filtersOfE4()).toEqual(before);
    expect((await call('PUT', `${EPR}/endpoints/e4/metadata/model`, { body: 'm1' })).status).toBe(200);
    expect(await filtersOfE4()).toEqual(['eq-plain', 'in', 'not-exists']);
    expect((await call('PUT', `${EPR}/endpoints/e4/metadata/level`, { body: 3 })).status).toBe(200);
    expect(await filtersOfE4()).toEqual(['eq-plain', 'in', 'not-exists', 'range', 'two-keys']);
    for (const key of ['model', 'level'])
      expect((await call('DELETE', `${EPR}/endpoints/e4/metadata/${key}`)).status).toBe(204);
    expect(await filtersOfE4()).toEqual(before);
  });
});

/** Patterns a backtracking engine takes exponential time on, which older checks (safe-regex2) let through. */
const EXPONENTIAL = ['^(\\w|\\d)*$', '^(a|a)*$', '^.*.*.*.*.*.*=$', '^(a+)+$'];

describe('endpoint filters: regular expressions run in linear time', async () => {
  const long = 'a'.repeat(20_000) + '!';
  const slow = {
    ...fixture,
    endpoints: [endpoint('long', { model: long }), endpoint('short', { model: 'aaaa' })],
    endpointFilters: EXPONENTIAL.map((pattern, i) => filter(`slow-${i}`, { model: { $regex: pattern } })),
  };
  const emulator = await startTestEmulator({ fixtures: fixtureFile(slow) });
  const call = api(emulator);

  it.each(EXPONENTIAL.map((pattern, i) => [pattern, i]))(
    '%s over a value of 20,001 characters answers at once, with the right matches',
    async (_pattern, i) => {
      // A backtracking engine would not answer this within the test's timeout (the value fails to match at its end).
      const matched = (await call('GET', `${EPR}/endpoints?filterId=slow-${i}`)).body.content.map(
        (e: any) => e.endpointId,
      );
      expect(matched).toEqual(i === 2 ? [] : ['short']);
    },
  );

  it('refuses, with 400 naming it, a pattern the linear-time engine cannot run', async () => {
    const state = (await call('GET', '/_emu/state')).body;
    const filters = state.collections['endpoint-filters'];
    const id = Object.keys(filters)[0];
    filters[id] = { ...filters[id], match: { model: { $regex: '^(?!a)' } } };
    const refused = await call('PUT', '/_emu/state', { body: state });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(
      new RegExp(
        String.raw`match\.model\.\$regex is not a valid regular expression for the emulator's ` +
          String.raw`linear-time engine \(RE2 syntax: no lookarounds`,
      ),
    );
  });
});
