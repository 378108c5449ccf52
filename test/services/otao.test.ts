import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { fixtureFile } from '../helpers/fixture-file.js';

const OTAO = '/otao/api/v1';
const software = (app: string, version = '') => `${OTAO}/applications/${app}/software${version ? `/${version}` : ''}`;

describe('over-the-air orchestrator', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  describe('reads', () => {
    it('lists the software of an application, lowest version first', async () => {
      const list = await call('GET', software('smart-meter'));
      expect(list.status).toBe(200);
      expect(list.body.map((s: any) => s.version)).toEqual(['1.0.0', '1.1.0', '2.0.0-beta.1', '2.0.0']);
      expect(list.body[1]).toEqual({
        appName: 'smart-meter',
        version: '1.1.0',
        specification: { url: 'https://firmware.example.com/smart-meter/1.1.0.bin', size: 524288 },
        metadata: { notes: 'faster reporting' },
        upgradableFrom: ['1.0.0'],
        rolloutStrategy: 'general',
        filters: [],
      });
    });

    it('gets one; 400 for a version that is not semantic; 404 for an unknown one, application or tenant', async () => {
      expect((await call('GET', software('smart-meter', '2.0.0-beta.1'))).body.filters).toEqual([
        { filterId: 'beta-testers', rolloutDate: '2024-01-01T00:00:00Z' },
      ]);
      for (const version of ['1.0', 'v1.0.0', 'latest']) {
        const response = await call('GET', software('smart-meter', version));
        expect(response.status, version).toBe(400);
        expect(response.body.message).toMatch(/semantic version/);
      }
      expect((await call('GET', software('smart-meter', '9.9.9'))).status).toBe(404);
      expect((await call('GET', software('nope'))).status).toBe(404);
      expect((await call('GET', software('thermostat'))).status).toBe(404);
    });
  });

  describe('POST (create)', () => {
    it('answers 201 with Location and the record; absent fields take their defaults', async () => {
      const created = await call('POST', software('tracker', '4.0.0-rc.1+build.7'), { body: {} });
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toBe(
        `${emulator.url}${software('tracker', encodeURIComponent('4.0.0-rc.1+build.7'))}`,
      );
      expect(created.body).toEqual({
        appName: 'tracker',
        version: '4.0.0-rc.1+build.7',
        upgradableFrom: [],
        rolloutStrategy: 'suspended',
        filters: [],
      });
      expect((await call('GET', software('tracker', encodeURIComponent('4.0.0-rc.1+build.7')))).body).toEqual(
        created.body,
      );
    });

    it('keeps every field given', async () => {
      const body = {
        specification: { url: 'https://x/y.bin', checksum: 'abc' },
        metadata: ['any', 'json'],
        upgradableFrom: ['3.2.0', '3.1.0'],
        rolloutStrategy: 'targeted',
        filters: [{ filterId: 'north-fleet', rolloutDate: '2030-05-01T12:00:00Z' }, { filterId: 'li-ion' }],
      };
      const created = await call('POST', software('tracker', '3.3.0'), { body });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toEqual({ appName: 'tracker', version: '3.3.0', ...body });
    });

    it('409 for a version that exists, also by precedence (build metadata)', async () => {
      expect((await call('POST', software('smart-meter', '1.0.0'), { body: {} })).status).toBe(409);
      const clash = await call('POST', software('smart-meter', '1.0.0+other'), { body: {} });
      expect(clash.status).toBe(409);
      expect(clash.body.message).toMatch(/same version by precedence/);
    });

    it.each([
      ['a path version that is not semantic', '1.2', {}, /semantic version/],
      ['an upgradableFrom entry that is not a version', '5.0.0', { upgradableFrom: ['1.x'] }, /upgradableFrom\[0\]/],
      ['upgradableFrom listing a version twice', '5.0.0', { upgradableFrom: ['1.0.0', '1.0.0'] }, /twice/],
      ['upgradableFrom listing the version itself', '5.0.0', { upgradableFrom: ['5.0.0'] }, /own version/],
      ['an unknown rollout strategy', '5.0.0', { rolloutStrategy: 'everyone' }, /rolloutStrategy must be one of/],
      [
        'a rolloutDate with milliseconds',
        '5.0.0',
        { filters: [{ filterId: 'beta-testers', rolloutDate: '2024-01-01T00:00:00.000Z' }] },
        /rolloutDate must match pattern/,
      ],
      [
        'a rolloutDate without time',
        '5.0.0',
        { filters: [{ filterId: 'beta-testers', rolloutDate: '2024-01-01' }] },
        /rolloutDate must match pattern/,
      ],
      [
        'a rolloutDate that is no date',
        '5.0.0',
        { filters: [{ filterId: 'beta-testers', rolloutDate: '2024-13-45T00:00:00Z' }] },
        /is not a date/,
      ],
      [
        'a filter the application does not have',
        '5.0.0',
        { filters: [{ filterId: 'north-fleet' }] },
        /not an endpoint filter of application smart-meter/,
      ],
      [
        'a filter listed twice',
        '5.0.0',
        { filters: [{ filterId: 'beta-testers' }, { filterId: 'beta-testers' }] },
        /twice/,
      ],
      ['an unknown field', '5.0.0', { version: '5.0.0' }, /unknown field version/],
    ])('400 for %s, nothing created', async (_name, version, body, message) => {
      const response = await call('POST', software('smart-meter', version), { body });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
      expect((await call('GET', software('smart-meter'))).body).toHaveLength(4);
    });

    it('404 for an unknown application or another tenant’s', async () => {
      expect((await call('POST', software('nope', '1.0.0'), { body: {} })).status).toBe(404);
      expect((await call('POST', software('thermostat', '1.0.0'), { body: {} })).status).toBe(404);
    });
  });

  describe('PUT (update) and DELETE', () => {
    it(
      'PUT answers 204; rolloutStrategy is required; given fields replace, absent ones stay; metadata null ' +
        'removes',
      async () => {
        await call('POST', software('tracker', '6.0.0'), {
          body: { specification: { s: 1 }, metadata: { m: 1 }, upgradableFrom: ['3.2.0'] },
        });
        const update = await call('PUT', software('tracker', '6.0.0'), {
          body: { rolloutStrategy: 'targeted', filters: [{ filterId: 'li-ion' }] },
        });
        expect(update.status, update.text).toBe(204);
        expect((await call('GET', software('tracker', '6.0.0'))).body).toEqual({
          appName: 'tracker',
          version: '6.0.0',
          specification: { s: 1 },
          metadata: { m: 1 },
          upgradableFrom: ['3.2.0'],
          rolloutStrategy: 'targeted',
          filters: [{ filterId: 'li-ion' }],
        });
        await call('PUT', software('tracker', '6.0.0'), {
          body: { rolloutStrategy: 'general', metadata: null, upgradableFrom: [], filters: [] },
        });
        expect((await call('GET', software('tracker', '6.0.0'))).body).toEqual({
          appName: 'tracker',
          version: '6.0.0',
          specification: { s: 1 },
          upgradableFrom: [],
          rolloutStrategy: 'general',
          filters: [],
        });
      },
    );

    it('400 without rolloutStrategy or with a specification; nothing changes', async () => {
      const before = (await call('GET', software('smart-meter', '1.1.0'))).body;
      const missing = await call('PUT', software('smart-meter', '1.1.0'), { body: { metadata: {} } });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toMatch(/rolloutStrategy is required/);
      const spec = await call('PUT', software('smart-meter', '1.1.0'), {
        body: { rolloutStrategy: 'general', specification: { url: 'x' } },
      });
      expect(spec.status).toBe(400);
      expect(spec.body.message).toMatch(/specification is not accepted on update/);
      expect((await call('GET', software('smart-meter', '1.1.0'))).body).toEqual(before);
    });

    it('404 for software that does not exist', async () => {
      expect(
        (await call('PUT', software('smart-meter', '7.7.7'), { body: { rolloutStrategy: 'general' } })).status,
      ).toBe(404);
      expect((await call('DELETE', software('smart-meter', '7.7.7'))).status).toBe(404);
    });

    it('DELETE answers 204 and the version is gone', async () => {
      await call('POST', software('tracker', '8.0.0'), { body: {} });
      expect((await call('DELETE', software('tracker', '8.0.0'))).status).toBe(204);
      expect((await call('GET', software('tracker', '8.0.0'))).status).toBe(404);
    });
  });
});

/**
 * The rollout rule of docs/services/ota.md, one row per application so that rows cannot see each other's software.
 * Each application has an active filter `red` (metadata color = red) and an inactive filter `inactive-red`.
 */
describe('the rollout rule, row by row', async () => {
  const rows = 16;
  const apps = Array.from({ length: rows }, (_, i) => `row-${i + 1}`);
  const emulator = await startTestEmulator({
    fixtures: fixtureFile({
      tenants: [{ id: 't1', realm_name: 't1' }],
      applications: apps.map((name) => ({ tenantId: 't1', name, versions: [{ name: `${name}-v1` }] })),
      endpointFilters: apps.flatMap((name) => [
        { applicationName: name, filterId: 'red', match: { color: 'red' } },
        { applicationName: name, filterId: 'inactive-red', status: 'INACTIVE', match: { color: 'red' } },
      ]),
    }),
  });
  const call = api(emulator);
  const PAST = '2020-01-01T00:00:00Z';
  const FUTURE = '2999-01-01T00:00:00Z';

  type Sw = {
    version: string;
    upgradableFrom?: string[];
    rolloutStrategy: string;
    filters?: Array<{ filterId: string; rolloutDate?: string }>;
  };
  const table: Array<[string, { softwareVersion?: string; color?: string }, Sw[], string]> = [
    [
      'no current version: software with empty upgradableFrom',
      {},
      [{ version: '1.0.0', rolloutStrategy: 'general' }],
      '1.0.0',
    ],
    [
      'no current version: software that upgrades only from a version',
      {},
      [{ version: '1.0.0', upgradableFrom: ['0.9.0'], rolloutStrategy: 'general' }],
      '',
    ],
    [
      'current version listed in upgradableFrom',
      { softwareVersion: '1.0.0' },
      [{ version: '1.1.0', upgradableFrom: ['1.0.0'], rolloutStrategy: 'general' }],
      '1.1.0',
    ],
    [
      'current version not in upgradableFrom',
      { softwareVersion: '1.0.0' },
      [{ version: '1.1.0', upgradableFrom: ['0.9.0'], rolloutStrategy: 'general' }],
      '',
    ],
    [
      'current version, software with empty upgradableFrom',
      { softwareVersion: '1.0.0' },
      [{ version: '1.1.0', rolloutStrategy: 'general' }],
      '',
    ],
    ['suspended offers nothing', {}, [{ version: '1.0.0', rolloutStrategy: 'suspended' }], ''],
    [
      'general ignores filters',
      { color: 'blue' },
      [{ version: '1.0.0', rolloutStrategy: 'general', filters: [{ filterId: 'red', rolloutDate: FUTURE }] }],
      '1.0.0',
    ],
    [
      'targeted: matching filter without rollout date',
      { color: 'red' },
      [{ version: '1.0.0', rolloutStrategy: 'targeted', filters: [{ filterId: 'red' }] }],
      '1.0.0',
    ],
    [
      'targeted: matching filter, rollout date passed',
      { color: 'red' },
      [{ version: '1.0.0', rolloutStrategy: 'targeted', filters: [{ filterId: 'red', rolloutDate: PAST }] }],
      '1.0.0',
    ],
    [
      'targeted: matching filter, rollout date to come',
      { color: 'red' },
      [{ version: '1.0.0', rolloutStrategy: 'targeted', filters: [{ filterId: 'red', rolloutDate: FUTURE }] }],
      '',
    ],
    [
      'targeted: filter not matched',
      { color: 'blue' },
      [{ version: '1.0.0', rolloutStrategy: 'targeted', filters: [{ filterId: 'red' }] }],
      '',
    ],
    [
      'targeted: matching filter inactive',
      { color: 'red' },
      [{ version: '1.0.0', rolloutStrategy: 'targeted', filters: [{ filterId: 'inactive-red' }] }],
      '',
    ],
    ['targeted: no filters', { color: 'red' }, [{ version: '1.0.0', rolloutStrategy: 'targeted' }], ''],
    [
      'targeted: one of several filters is enough',
      { color: 'red' },
      [
        {
          version: '1.0.0',
          rolloutStrategy: 'targeted',
          filters: [{ filterId: 'inactive-red' }, { filterId: 'red', rolloutDate: PAST }],
        },
      ],
      '1.0.0',
    ],
    [
      'several candidates: the highest version wins (a prerelease is lower than its release)',
      { softwareVersion: '1.0.0' },
      [
        { version: '1.1.0', upgradableFrom: ['1.0.0'], rolloutStrategy: 'general' },
        { version: '2.0.0-beta.1', upgradableFrom: ['1.0.0'], rolloutStrategy: 'general' },
        { version: '2.0.0', upgradableFrom: ['1.0.0'], rolloutStrategy: 'general' },
        { version: '1.5.0', upgradableFrom: ['1.0.0'], rolloutStrategy: 'general' },
      ],
      '2.0.0',
    ],
    [
      'a higher version that is not rolled out leaves the lower candidate',
      { softwareVersion: '1.0.0', color: 'blue' },
      [
        { version: '1.1.0', upgradableFrom: ['1.0.0'], rolloutStrategy: 'general' },
        { version: '3.0.0', upgradableFrom: ['1.0.0'], rolloutStrategy: 'suspended' },
        { version: '2.0.0', upgradableFrom: ['1.0.0'], rolloutStrategy: 'targeted', filters: [{ filterId: 'red' }] },
      ],
      '1.1.0',
    ],
  ];

  it('has one application per row', () => expect(table).toHaveLength(rows));

  it.each(table.map((row, i) => [i + 1, ...row] as const))('row %i: %s', async (n, _name, metadata, list, offered) => {
    const app = `row-${n}`;
    for (const { version, ...body } of list)
      expect((await call('POST', software(app, version), { body })).status).toBe(201);
    const endpoint = await call('POST', '/epr/api/v1/endpoints', {
      body: { appVersion: { name: `${app}-v1` }, endpointId: `${app}-device`, metadata },
    });
    expect(endpoint.status).toBe(201);
    const ask = (payload: unknown) =>
      call('POST', `/kp1/${app}-v1/cmx_ota/${endpoint.body.token}/config/json`, { body: payload });
    const answer = await ask({});
    expect(answer.status).toBe(200);
    if (offered === '') {
      expect(answer.body).toEqual({ configId: '', config: null, statusCode: 200, reasonPhrase: 'ok' });
    } else {
      expect(answer.body).toEqual({ configId: offered, config: null, statusCode: 200, reasonPhrase: 'ok' });
      expect((await ask({ configId: offered })).body).toEqual({});
    }
  });
});
