import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const AM = '/app-manager/api/v1';

describe('application manager', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  describe('service instances', () => {
    it('lists every service the emulator serves, with its urlPrefix, and schemas only when included', async () => {
      const list = await call('GET', `${AM}/service-instances`);
      expect(list.status).toBe(200);
      const names = list.body.map((s: any) => s.name);
      for (const prefix of ['epr', 'app-manager', 'tenant-manager']) expect(names).toContain(prefix);
      const epr = list.body.find((s: any) => s.name === 'epr');
      expect(epr).toMatchObject({
        serviceName: 'epr',
        urlPrefix: '/epr',
        appConfigurationSchemaPresent: false,
        appVersionConfigurationSchemaPresent: false,
      });
      expect(epr.description).toMatch(/Endpoint register/);
      expect(epr).not.toHaveProperty('appConfigurationSchema');
    });

    it('gets one, 404 for an unknown one, 400 for an unknown include', async () => {
      expect((await call('GET', `${AM}/service-instances/epr?include=appConfigurationSchema`)).body.urlPrefix).toBe(
        '/epr',
      );
      expect((await call('GET', `${AM}/service-instances/nope`)).status).toBe(404);
      expect((await call('GET', `${AM}/service-instances?include=everything`)).status).toBe(400);
    });

    it('every listed urlPrefix serves its service', async () => {
      const list = await call('GET', `${AM}/service-instances`);
      for (const instance of list.body) {
        const response = await call('GET', `${instance.urlPrefix}/api/v1/no-such-path`);
        expect(response.status).toBe(404);
        expect(response.body.message).toMatch(/No operation/);
      }
    });
  });

  describe('applications', () => {
    it('lists the tenant’s applications with versions', async () => {
      const list = await call('GET', `${AM}/applications`);
      expect(list.status).toBe(200);
      expect(list.body.map((a: any) => a.name)).toEqual(['smart-meter', 'tracker']);
      const meter = list.body[0];
      expect(meter).toMatchObject({ name: 'smart-meter', displayName: 'Smart meter', tenantId: 'acme' });
      expect(meter.versions.map((v: any) => v.name)).toEqual(['smart-meter-v1', 'smart-meter-v2']);
      expect(meter.versions[0]).toEqual({
        name: 'smart-meter-v1',
        displayName: 'Smart meter v1',
        createdDate: expect.any(String),
        updatedDate: expect.any(String),
      });
    });

    it('creates one with Location, then it is listed and readable', async () => {
      const created = await call('POST', `${AM}/applications`, {
        body: { name: 'weather_station-2', displayName: 'Weather', description: 'Rooftop sensors' },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toBe(`${emulator.url}/app-manager/api/v1/applications/weather_station-2`);
      expect(created.body).toMatchObject({
        name: 'weather_station-2',
        displayName: 'Weather',
        tenantId: 'acme',
        versions: [],
      });
      const fetched = await call('GET', `${AM}/applications/weather_station-2`);
      expect(fetched.body.description).toBe('Rooftop sensors');
    });

    it('requires a name while name auto-generation is off (the default)', async () => {
      for (const body of [{ displayName: 'Nameless' }, { name: '' }, { name: null }]) {
        const refused = await call('POST', `${AM}/applications`, { body });
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.message).toMatch(/name is required: name auto-generation is off/);
      }
    });

    it.each([[{ name: 'Upper' }], [{ name: 'has space' }], [{ name: 42 }], [{ name: 'ok', displayName: 7 }], [[]]])(
      '400 for %j',
      async (body) => {
        const response = await call('POST', `${AM}/applications`, { body });
        expect(response.status).toBe(400);
        expect(response.body.message).toEqual(expect.any(String));
      },
    );

    it('409 for a name that exists (in any tenant)', async () => {
      expect((await call('POST', `${AM}/applications`, { body: { name: 'tracker' } })).status).toBe(409);
      expect((await call('POST', `${AM}/applications`, { body: { name: 'thermostat' } })).status).toBe(409);
    });

    it('creates in another tenant with ?tenantId= when auth is off', async () => {
      const created = await call('POST', `${AM}/applications?tenantId=globex`, { body: { name: 'globex-extra' } });
      expect(created.status).toBe(201);
      expect(created.body.tenantId).toBe('globex');
      expect((await call('GET', `${AM}/applications/globex-extra`)).status).toBe(404);
      expect((await call('GET', `${AM}/applications?tenantId=globex`)).body.map((a: any) => a.name)).toContain(
        'globex-extra',
      );
      expect((await call('POST', `${AM}/applications?tenantId=nobody`, { body: { name: 'x-nobody' } })).status).toBe(
        400,
      );
    });

    it('404 for another tenant’s application', async () => {
      expect((await call('GET', `${AM}/applications/thermostat`)).status).toBe(404);
    });
  });

  describe('versions (emulator addition)', () => {
    it('creates a version with Location; it appears in the application and can take endpoints', async () => {
      const created = await call('POST', `${AM}/applications/tracker/versions`, {
        body: { name: 'tracker-v2', displayName: 'Tracker v2' },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toBe(
        `${emulator.url}/app-manager/api/v1/applications/tracker/versions/tracker-v2`,
      );
      expect((await call('GET', `${AM}/applications/tracker/versions/tracker-v2`)).body.displayName).toBe('Tracker v2');
      expect((await call('GET', `${AM}/applications/tracker`)).body.versions.map((v: any) => v.name)).toEqual([
        'tracker-v1',
        'tracker-v2',
      ]);
      const endpoint = await call('POST', '/epr/api/v1/endpoints', { body: { appVersion: { name: 'tracker-v2' } } });
      expect(endpoint.status).toBe(201);
    });

    it('generates a name, rejects a taken or invalid one, 404 for an unknown application', async () => {
      const generated = await call('POST', `${AM}/applications/tracker/versions`, { body: {} });
      expect(generated.status).toBe(201);
      expect(generated.body.name).toMatch(/^tracker-v\d+$/);
      expect(
        (await call('POST', `${AM}/applications/tracker/versions`, { body: { name: 'smart-meter-v1' } })).status,
      ).toBe(409);
      expect((await call('POST', `${AM}/applications/tracker/versions`, { body: { name: 'a/b' } })).status).toBe(400);
      expect((await call('POST', `${AM}/applications/nope/versions`, { body: { name: 'nope-v1' } })).status).toBe(404);
      expect(
        (await call('POST', `${AM}/applications/thermostat/versions`, { body: { name: 'thermostat-v9' } })).status,
      ).toBe(404);
    });
  });

  describe('first revision (--compat app-manager=1)', async () => {
    const first = await startTestEmulator({ compat: { 'app-manager': '1' } });
    it('requires a name', async () => {
      const response = await api(first)('POST', `${AM}/applications`, { body: { displayName: 'x' } });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/name is required/);
    });
  });

  describe('with auth on', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const call2 = api(secured);

    it('a tenant scope creates in its own tenant only; the platform scope may name another', async () => {
      const tenantToken = await tokenFor(secured, { scopes: ['tenant:application:create'] });
      expect(
        (await call2('POST', `${AM}/applications`, { token: tenantToken, body: { name: 'own-app' } })).status,
      ).toBe(201);
      expect(
        (
          await call2('POST', `${AM}/applications?tenantId=globex`, {
            token: tenantToken,
            body: { name: 'foreign-app' },
          })
        ).status,
      ).toBe(403);
      const platformToken = await tokenFor(secured, { scopes: ['platform:application:create'] });
      const created = await call2('POST', `${AM}/applications?tenantId=globex`, {
        token: platformToken,
        body: { name: 'foreign-app' },
      });
      expect(created.status).toBe(201);
      expect(created.body.tenantId).toBe('globex');
    });

    it('lists only the caller’s tenant', async () => {
      const globex = await tokenFor(secured, { tenant: 'globex' });
      const list = await call2('GET', `${AM}/applications`, { token: globex });
      expect(list.body.map((a: any) => a.name)).toEqual(['foreign-app', 'thermostat']);
      expect((await call2('GET', `${AM}/applications?tenantId=acme`, { token: globex })).body).toEqual([]);
    });
  });
});
