import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES } from '../src/config.js';
import { startEmulator } from '../src/index.js';
import { api, startTestEmulator } from './helpers/emulator.js';
import { fixtureFile } from './helpers/fixture-file.js';

const base = {
  tenants: [{ id: 't1', realm_name: 't1' }],
  applications: [{ tenantId: 't1', name: 'app', versions: [{ name: 'app-v1' }] }],
  endpoints: [{ endpointId: 'e1', appVersion: 'app-v1', token: 'e1-token' }],
};

const start = (fixtures: string, dataDir?: string) =>
  startEmulator({ port: 0, mqttPort: 0, inMemory: !dataDir, dataDir, fixtures, log: () => undefined });

describe('fixture files', () => {
  it('seed a custom platform; the first tenant is the default', async () => {
    const emulator = await start(fixtureFile(base));
    try {
      const list = await api(emulator)('GET', '/epr/api/v1/endpoints');
      expect(list.body.content.map((e: any) => e.endpointId)).toEqual(['e1']);
    } finally {
      await emulator.stop();
    }
  });

  it.each([
    [{ ...base, gadgets: [] }, /unknown section "gadgets"/],
    [
      { ...base, endpoints: [{ endpointId: 'bad id', appVersion: 'app-v1', token: 't' }] },
      /endpoints\[0\] \(bad id\): endpointId must match pattern/,
    ],
    [
      { ...base, endpoints: [...base.endpoints, { endpointId: 'e2', appVersion: 'nope', token: 't2' }] },
      /endpoints\[1\] \(e2\): appVersion nope is not a version/,
    ],
    [
      { ...base, endpoints: [...base.endpoints, { endpointId: 'e2', appVersion: 'app-v1', token: 'e1-token' }] },
      /endpoints\[1\] \(e2\): .*endpointToken is already used/,
    ],
    [{ ...base, defaultTenant: 'nobody' }, /defaultTenant nobody is not one of the tenants/],
    [{ ...base, tenants: [{ id: 't1' }] }, /tenants\[0\] \(t1\): realm_name is required/],
    [[1, 2], /a fixture file is a JSON object/],
    [
      {
        ...base,
        endpointFilters: [{ applicationName: 'app', filterId: 'f', match: { serial: { $regex: '^(?=a)' } } }],
      },
      new RegExp(
        String.raw`endpointFilters\[0\] \(f\): match.serial.\$regex is not a valid regular expression for the ` +
          String.raw`emulator's linear-time engine \(RE2 syntax: no lookarounds`,
      ),
    ],
    [
      {
        ...base,
        endpointFilters: [{ applicationName: 'app', filterId: 'f', match: { serial: { $regex: '(a)\\1' } } }],
      },
      /match.serial.\$regex is not a valid regular expression .*backreferences/,
    ],
    [
      { ...base, endpointFilters: [{ applicationName: 'app', filterId: 'f', match: { serial: { $regex: '(' } } }] },
      /match.serial.\$regex is not a valid regular expression/,
    ],
    [
      {
        ...base,
        endpointFilters: [{ applicationName: 'app', filterId: 'f', match: { serial: { $regex: 'a'.repeat(257) } } }],
      },
      /is longer than 256 characters/,
    ],
    [
      { ...base, endpointFilters: [{ applicationName: 'app', filterId: 'f', match: { serial: { $like: 'x' } } }] },
      /unknown operator \$like/,
    ],
    [
      { ...base, endpointFilters: [{ applicationName: 'app', filterId: 'f', match: { serial: { $in: 'x' } } }] },
      /match.serial.\$in must be an array/,
    ],
  ])('that do not validate stop the start with the record named (%#)', async (content, message) => {
    const path = fixtureFile(content);
    await expect(start(path)).rejects.toThrow(message);
    await expect(start(path)).rejects.toThrow(path);
  });

  it('that do not validate leave a new data directory without state', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'emu-data-'));
    await expect(
      start(fixtureFile({ ...base, endpoints: [{ endpointId: 'x', appVersion: 'nope', token: 'x' }] }), dataDir),
    ).rejects.toThrow(/appVersion nope/);
    expect(readdirSync(dataDir)).not.toContain('emulator.lock');
    const state = readdirSync(dataDir).includes('state.json')
      ? JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8'))
      : { collections: {} };
    expect(state.collections).toEqual({});
  });

  it('"none" starts an empty platform', async () => {
    const emulator = await start('none');
    try {
      expect((await api(emulator)('GET', '/epr/api/v1/endpoints')).body.totalElements).toBe(0);
      expect((await api(emulator)('GET', '/app-manager/api/v1/service-instances')).body.length).toBeGreaterThan(0);
    } finally {
      await emulator.stop();
    }
  });
});

describe("the package's own fixtures", () => {
  const own = () => JSON.parse(readFileSync(DEFAULT_FIXTURES, 'utf8'));
  // The whole state, but for what differs between any two starts: dates, random uuids, salted password hashes.
  const seeded = async (emulator: Awaited<ReturnType<typeof start>>) => {
    const { collections } = (await api(emulator)('GET', '/_emu/state')).body as { collections: Record<string, object> };
    const text = JSON.stringify(collections)
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<date>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/scrypt\$[^"]+/g, '<hash>');
    return JSON.parse(text) as Record<string, Record<string, unknown>>;
  };

  // A start on fixtures/default.json leaves out the record schemas' checks (docs/fixtures.md): this is where they run.
  it('hold to every check a fixture file of a user gets, and seed the same records as a start on them', async () => {
    const [checked, packaged] = await Promise.all([start(fixtureFile(own())), start(DEFAULT_FIXTURES)]);
    try {
      const state = await seeded(checked);
      expect(Object.keys(state.endpoints!)).toHaveLength(12);
      expect(await seeded(packaged)).toEqual(state);
    } finally {
      await Promise.all([checked.stop(), packaged.stop()]);
    }
  });

  it.each([
    [
      'a record',
      (f: any) => (f.endpoints[0].endpointId = 'bad id'),
      /endpoints\[0\] \(bad id\): endpointId must match pattern/,
    ],
    [
      'a configuration against its configSchema',
      (f: any) => (f.endpointConfigurations[0].config.tariff = 'free'),
      new RegExp(
        String.raw`endpointConfigurations\[0\]: .*does not satisfy the configuration schema of application version ` +
          String.raw`smart-meter-v1: tariff must be one of`,
      ),
    ],
  ])('copied and broken (%s), are refused like any fixture file', async (_what, breakIt, message) => {
    const fixture = own();
    breakIt(fixture);
    const path = fixtureFile(fixture);
    await expect(start(path)).rejects.toThrow(message);
    await expect(start(path)).rejects.toThrow(path);
  });
});

describe('the control plane moves whole states', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('exports, imports a fixture file or a state document, and resets to the fixtures', async () => {
    // With secrets: the state in between (`base`) has none of these tenants' secrets to keep.
    const exported = (await call('GET', '/_emu/state?includeSecrets=true')).body;
    expect(exported.schemaVersion).toBe(1);
    expect(Object.keys(exported.collections.endpoints)).toHaveLength(12);

    expect((await call('PUT', '/_emu/state', { body: base })).status).toBe(204);
    expect((await call('GET', '/epr/api/v1/endpoints')).body.content.map((e: any) => e.endpointId)).toEqual(['e1']);

    expect((await call('PUT', '/_emu/state', { body: exported })).status).toBe(204);
    expect((await call('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements).toBe(10);

    await call('POST', '/epr/api/v1/endpoints', { body: { appVersion: { name: 'tracker-v1' } } });
    expect((await call('POST', '/_emu/reset')).status).toBe(204);
    expect((await call('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements).toBe(10);
  });

  it('an import that does not validate is a 400 naming the record, and changes nothing', async () => {
    const exported = (await call('GET', '/_emu/state')).body;
    const broken = structuredClone(exported);
    delete broken.collections.endpoints['meter-003'].tenantId;
    const response = await call('PUT', '/_emu/state', { body: broken });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/collections\.endpoints\["meter-003"\].*tenantId/);
    const unknown = await call('PUT', '/_emu/state', { body: { ...exported, collections: { gadgets: {} } } });
    expect(unknown.status).toBe(400);
    expect((await call('GET', '/_emu/state')).body.collections).toEqual(exported.collections);
  });
});
