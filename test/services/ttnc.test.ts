import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import { INTEGRATIONS } from '../../src/services/ttnc/integrations.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const TTNC = '/ttnc/api/v1';
const KEY = 'NNSXS.VERY-SECRET-KEY-0123456789';
const integration = (overrides: Record<string, unknown> = {}) => ({
  appName: 'smart-meter',
  lnsUsername: 'acme-meters',
  lnsApiKeyId: KEY,
  lnsIdentityServerHost: 'eu1.cloud.thethings.network',
  lnsPlainMqttServerUrl: 'eu1.cloud.thethings.network:1883',
  name: 'Meters on TTN',
  ...overrides,
});

describe('LoRaWAN connector', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('is listed by GET /app-manager/api/v1/service-instances under /ttnc', async () => {
    const instances = (await call('GET', '/app-manager/api/v1/service-instances')).body as any[];
    expect(instances.filter((i) => i.urlPrefix === '/ttnc')).toEqual([
      expect.objectContaining({ name: 'ttnc', serviceGroup: 'device' }),
    ]);
  });

  describe('POST /integrations', async () => {
    const writable = await startTestEmulator();
    const call = api(writable);

    it('creates an ACTIVE integration: 201 with Location and the integration, never the API key', async () => {
      const created = await call('POST', `${TTNC}/integrations`, { body: integration({ description: 'the meters' }) });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        appName: 'smart-meter',
        lnsUsername: 'acme-meters',
        lnsIdentityServerHost: 'eu1.cloud.thethings.network',
        lnsPlainMqttServerUrl: 'eu1.cloud.thethings.network:1883',
        name: 'Meters on TTN',
        description: 'the meters',
        status: 'ACTIVE',
        state: 'CONNECTED',
        devices: [],
      });
      expect(created.headers.get('location')).toBe(`${writable.url}${TTNC}/integrations/${created.body.id}`);
      const fetched = await call('GET', `${TTNC}/integrations/${created.body.id}`);
      expect(fetched.body).toEqual(created.body);
      const listed = await call('GET', `${TTNC}/integrations?applicationName=smart-meter`);
      for (const response of [created, fetched, listed, await call('GET', '/_emu/lorawan/integrations')]) {
        expect(response.text).not.toContain(KEY);
        expect(response.text).not.toContain('lnsApiKeyId');
      }
    });

    it.each(['appName', 'lnsUsername', 'lnsApiKeyId', 'lnsIdentityServerHost', 'lnsPlainMqttServerUrl', 'name'])(
      '400 without %s',
      async (field) => {
        const body: Record<string, unknown> = integration({ appName: 'tracker', lnsUsername: `missing-${field}` });
        delete body[field];
        const response = await call('POST', `${TTNC}/integrations`, { body });
        expect(response.status).toBe(400);
        expect(response.body.message).toBe(`Invalid request body: ${field} is required.`);
      },
    );

    it.each([
      [{ name: '' }, /name must NOT have fewer than 1 characters/],
      [{ lnsUsername: 7 }, /lnsUsername must be a string/],
      [{ lnsIdentityServerHost: 'two words' }, /lnsIdentityServerHost must match pattern/],
      [{ description: 5 }, /description must be a string/],
      [{ appName: 'no-such-app', lnsUsername: 'u-1' }, /There is no application no-such-app/],
      [{ appName: 'thermostat', lnsUsername: 'u-2' }, /There is no application thermostat/],
    ])('400 for %j', async (overrides, message) => {
      const response = await call('POST', `${TTNC}/integrations`, {
        body: integration({ lnsUsername: 'fresh', ...overrides }),
      });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
    });

    it('409 when the application or the network server username is used by an integration already', async () => {
      const app = await call('POST', `${TTNC}/integrations`, {
        body: integration({ appName: 'tracker', lnsUsername: 'someone-new' }),
      });
      expect(app.status).toBe(409);
      expect(app.body.message).toMatch(/Application tracker is already used by integration 1/);
      const user = await call('POST', `${TTNC}/integrations`, {
        body: integration({ appName: 'smart-meter', lnsUsername: 'acme-trackers' }),
      });
      expect(user.status).toBe(409);
      expect(user.body.message).toMatch(/username acme-trackers is already used/);
    });
  });

  it('GET /integrations lists ACTIVE ones by default, without devices; status and applicationName filter', async () => {
    const listed = await call('GET', `${TTNC}/integrations`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      totalElements: 1,
      content: [
        {
          id: 1,
          appName: 'tracker',
          lnsUsername: 'acme-trackers',
          lnsIdentityServerHost: 'eu1.cloud.thethings.network',
          lnsPlainMqttServerUrl: 'eu1.cloud.thethings.network:1883',
          name: 'Trackers on The Things Network',
          description: 'LoRaWAN trackers of the acme fleet',
          status: 'ACTIVE',
          state: 'CONNECTED',
        },
      ],
    });
    expect((await call('GET', `${TTNC}/integrations?status=SUSPENDED`)).body).toEqual({
      totalElements: 0,
      content: [],
    });
    expect((await call('GET', `${TTNC}/integrations?applicationName=smart-meter`)).body.totalElements).toBe(0);
    expect((await call('GET', `${TTNC}/integrations?applicationName=tracker`)).body.totalElements).toBe(1);
    const bad = await call('GET', `${TTNC}/integrations?status=PAUSED`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/status must be one of ACTIVE, SUSPENDED/);
  });

  it('GET /integrations/{id} answers the integration with its devices; 404 unknown, 400 not a number', async () => {
    const one = await call('GET', `${TTNC}/integrations/1`);
    expect(one.body.devices).toEqual([
      {
        id: expect.any(Number),
        appVersionName: 'tracker-v1',
        lnsDeviceId: 'eui-70b3d57ed0000001',
        endpointId: 'tracker-001',
        name: 'Tracker 1',
        status: 'ACTIVE',
      },
      {
        id: expect.any(Number),
        appVersionName: 'tracker-v1',
        lnsDeviceId: 'eui-70b3d57ed0000002',
        endpointId: 'tracker-002',
        name: 'Tracker 2',
        status: 'SUSPENDED',
      },
    ]);
    expect((await call('GET', `${TTNC}/integrations/999`)).status).toBe(404);
    expect((await call('GET', `${TTNC}/integrations/first`)).status).toBe(400);
  });

  describe('what the network server reports, set through /_emu/lorawan', async () => {
    const own = await startTestEmulator();
    const emu = api(own);
    const patch = (id: number, body: unknown) => emu('PATCH', `/_emu/lorawan/integrations/${id}`, { body });

    it('state and error, then back to CONNECTED (which clears the error)', async () => {
      const down = await patch(1, { state: 'DISCONNECTED', error: 'the MQTT server refused the API key' });
      expect(down.status).toBe(200);
      expect(down.body).toMatchObject({
        tenantId: 'acme',
        id: 1,
        state: 'DISCONNECTED',
        error: 'the MQTT server refused the API key',
      });
      expect((await emu('GET', `${TTNC}/integrations/1`)).body).toMatchObject({
        state: 'DISCONNECTED',
        error: 'the MQTT server refused the API key',
      });
      const up = await patch(1, { state: 'CONNECTED' });
      expect(up.body.state).toBe('CONNECTED');
      expect(up.body).not.toHaveProperty('error');
      await patch(1, { error: 'flaky' });
      expect((await patch(1, { error: null })).body).not.toHaveProperty('error');
    });

    it('status: a SUSPENDED integration leaves the default list', async () => {
      await patch(1, { status: 'SUSPENDED' });
      expect((await emu('GET', `${TTNC}/integrations`)).body.totalElements).toBe(0);
      expect((await emu('GET', `${TTNC}/integrations?status=SUSPENDED`)).body.content.map((i: any) => i.id)).toEqual([
        1,
      ]);
      await patch(1, { status: 'ACTIVE' });
    });

    it(
      'devices: replaced as a whole, each linked to an endpoint of the application, ids kept by ' + 'lnsDeviceId',
      async () => {
        const before = (await emu('GET', `${TTNC}/integrations/1`)).body.devices;
        const replaced = await patch(1, {
          devices: [
            { lnsDeviceId: 'eui-70b3d57ed0000002', endpointId: 'tracker-002', name: 'Tracker 2 again' },
            {
              lnsDeviceId: 'eui-70b3d57ed0000003',
              endpointId: 'tracker-003',
              name: 'Tracker 3',
              description: 'new',
              appVersionName: 'tracker-v1',
            },
          ],
        });
        expect(replaced.status).toBe(200);
        expect(replaced.body.devices).toEqual([
          {
            id: before[1].id,
            appVersionName: 'tracker-v1',
            lnsDeviceId: 'eui-70b3d57ed0000002',
            endpointId: 'tracker-002',
            name: 'Tracker 2 again',
            status: 'ACTIVE',
          },
          {
            id: expect.any(Number),
            appVersionName: 'tracker-v1',
            lnsDeviceId: 'eui-70b3d57ed0000003',
            endpointId: 'tracker-003',
            name: 'Tracker 3',
            description: 'new',
            status: 'ACTIVE',
          },
        ]);
        expect((await emu('GET', `${TTNC}/integrations/1`)).body.devices).toEqual(replaced.body.devices);
      },
    );

    it.each([
      [
        { devices: [{ lnsDeviceId: 'd', endpointId: 'meter-001', name: 'x' }] },
        /meter-001 is not an endpoint of application tracker/,
      ],
      [{ devices: [{ lnsDeviceId: 'd', endpointId: 'nope', name: 'x' }] }, /nope is not an endpoint/],
      [
        { devices: [{ lnsDeviceId: 'd', endpointId: 'tracker-001', name: 'x', appVersionName: 'smart-meter-v1' }] },
        /smart-meter-v1 is not a version of application tracker/,
      ],
      [
        {
          devices: [
            { lnsDeviceId: 'd', endpointId: 'tracker-001', name: 'x' },
            { lnsDeviceId: 'd', endpointId: 'tracker-002', name: 'y' },
          ],
        },
        /lnsDeviceId d is listed twice/,
      ],
      [{ state: 'ONLINE' }, /state must be one of "CONNECTED", "DISCONNECTED"/],
      [{ colour: 'red' }, /unknown field colour/],
      [{}, /must NOT have fewer than 1 properties/],
    ])('400 for %j, and nothing changes', async (body, message) => {
      const before = (await emu('GET', '/_emu/lorawan/integrations/1')).body;
      const response = await patch(1, body);
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
      expect((await emu('GET', '/_emu/lorawan/integrations/1')).body).toEqual(before);
    });

    it('404 for an unknown integration; the list shows every tenant', async () => {
      expect((await patch(99, { state: 'CONNECTED' })).status).toBe(404);
      expect((await emu('GET', '/_emu/lorawan/integrations/99')).status).toBe(404);
      const all = (await emu('GET', '/_emu/lorawan/integrations')).body;
      expect(all.map((i: any) => [i.tenantId, i.id])).toEqual([['acme', 1]]);
    });
  });

  it(
    'lnsApiKeyId is in no export, journal or event unless secrets are asked for, and a redacted export keeps ' + 'it',
    async () => {
      const own = await startTestEmulator();
      const call = api(own);
      const created = await call('POST', `${TTNC}/integrations`, { body: integration() });
      expect(created.status).toBe(201);
      const exported = await call('GET', '/_emu/state');
      expect(exported.text).not.toContain(KEY);
      expect((await call('GET', '/_emu/requests')).text).not.toContain(KEY);
      expect((await call('GET', '/_emu/state?includeSecrets=true')).text).toContain(KEY);
      expect((await call('PUT', '/_emu/state', { body: exported.body })).status).toBe(204);
      const stored = INTEGRATIONS.get(internalContext(own), String(created.body.id)) as unknown as Record<
        string,
        unknown
      >;
      expect(stored.lnsApiKeyId).toBe(KEY);
    },
  );

  it('a fixture integration must name an application and endpoints of the fixtures', async () => {
    const own = await startTestEmulator();
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'));
    const bad = { ...fixture, lorawanIntegrations: [{ ...fixture.lorawanIntegrations[0], appName: 'nope' }] };
    const response = await api(own)('PUT', '/_emu/state', { body: bad });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(
      /lorawanIntegrations\[0\] \(Trackers on The Things Network\): appName nope is not an application/,
    );
    const badDevice = {
      ...fixture,
      lorawanIntegrations: [
        { ...fixture.lorawanIntegrations[0], devices: [{ lnsDeviceId: 'x', endpointId: 'thermo-001', name: 'x' }] },
      ],
    };
    expect((await api(own)('PUT', '/_emu/state', { body: badDevice })).body.message).toMatch(
      /thermo-001 is not an endpoint of application tracker/,
    );
  });

  describe('with auth on', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const emu = api(secured);
    const globex = await tokenFor(secured, { tenant: 'globex' });
    const acme = await tokenFor(secured, { tenant: 'acme' });

    it("another tenant's integration is absent", async () => {
      expect((await emu('GET', `${TTNC}/integrations/1`, { token: globex })).status).toBe(404);
      expect((await emu('GET', `${TTNC}/integrations`, { token: globex })).body).toEqual({
        totalElements: 0,
        content: [],
      });
      expect((await emu('GET', `${TTNC}/integrations/1`, { token: acme })).status).toBe(200);
      const created = await emu('POST', `${TTNC}/integrations`, {
        body: integration({ appName: 'thermostat', lnsUsername: 'acme-trackers' }),
        token: globex,
      });
      // The same username in another tenant is not taken.
      expect(created.status).toBe(201);
    });
  });
});
