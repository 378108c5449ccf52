import { describe, expect, it } from 'vitest';
import { isPlatformTopic } from '../../src/gateway/broker-rules.js';
import { ECR, json } from '../helpers/ecr.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, TestDevice } from './device.js';

const message = (configId: string, config: unknown) => ({ configId, statusCode: 200, reasonPhrase: 'ok', config });

describe('cmx: named configurations (7/CMP use case 3)', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it(
    'keeps a named configuration apart from the default one: stored, offered, pushed and applied on its ' + 'own',
    async () => {
      const endpoint = await registerEndpoint(emulator, 'tracker-v1');
      const device = await TestDevice.connect(emulator);
      const cmx = endpoint.topic('cmx');
      const path = `${ECR}/endpoints/${endpoint.endpointId}/app-versions/tracker-v1`;

      // Unknown name, nothing stored: the "none" answer, like the default configuration's.
      expect((await device.request(`${cmx}/config/json/network`, {})).payload).toEqual(message('', null));
      expect((await call('GET', `${path}?configName=network`)).status).toBe(404);

      const observeNetwork = await device.request(`${cmx}/config/json/network`, { observe: true });
      const observeDefault = await device.request(`${cmx}/config/json`, { observe: true });
      const created = await call('PUT', `${path}?configName=network`, json({ apn: 'internet' }));
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toMatch(/\/app-versions\/tracker-v1\?configName=network$/);
      const networkId = created.headers.get('etag')!.replace(/"/g, '');

      const pushed = await device.waitFor(
        (m) => m.topic === `${observeNetwork.requestTopic}/status` && m.payload.configId !== '',
      );
      expect(pushed.payload).toEqual(message(networkId, { apn: 'internet' }));
      expect(device.onTopic(`${observeDefault.requestTopic}/status`)).toHaveLength(1);

      // The default configuration is untouched, and reads and answers as before.
      const ownDefault = await call('GET', path);
      expect(ownDefault.status).toBe(404);
      expect((await call('GET', `${path}?configName=network`)).body).toEqual({ apn: 'internet' });
      expect((await device.request(`${cmx}/config/json/network`, { configId: networkId })).payload).toEqual({});
      expect((await device.request(`${cmx}/config/json`, {})).payload).toEqual(
        message(expect.any(String), { gpsIntervalSeconds: 30, geofence: 'city' }),
      );

      // Applied on its own: the listing shows it beside the default configuration, each with what was reported.
      expect((await device.request(`${cmx}/applied/json/network`, { configId: networkId })).payload).toBeUndefined();
      const listing = await call('GET', `${ECR}/endpoints/${endpoint.endpointId}`);
      expect(listing.body).toEqual([
        expect.objectContaining({ appVersionName: 'tracker-v1', configName: 'network', appliedConfigId: networkId }),
      ]);
      expect(listing.body[0]).not.toHaveProperty('defaultConfiguration');
      const defaultId = (await device.request(`${cmx}/config/json`, {})).payload.configId;
      await device.request(`${cmx}/applied/json`, { configId: defaultId });
      const both = (await call('GET', `${ECR}/endpoints/${endpoint.endpointId}`)).body;
      expect(both.map((i: any) => [i.configName, i.appliedConfigId, i.defaultConfiguration])).toEqual([
        [undefined, defaultId, true],
        ['network', networkId, undefined],
      ]);

      // A rejection of the named configuration leaves the applied one and the default one alone.
      await device.request(`${cmx}/applied/json/network`, { configId: 'other', statusCode: 500 });
      const after = (await call('GET', `${ECR}/endpoints/${endpoint.endpointId}`)).body;
      expect(after[1]).toMatchObject({ appliedConfigId: networkId, rejection: { configId: 'other', statusCode: 500 } });
      expect(after[0]).not.toHaveProperty('rejection');

      // Deleting it is pushed to its observers as "none".
      expect((await call('DELETE', `${path}?configName=network`)).status).toBe(204);
      await device.waitFor((m) => m.topic === `${observeNetwork.requestTopic}/status` && m.payload.configId === '');
      expect(device.onTopic(`${observeDefault.requestTopic}/status`)).toHaveLength(1);
    },
  );

  it(
    "a version's named default reaches the endpoints without their own of that name, and is pushed on " + 'connecting',
    async () => {
      const endpoint = await registerEndpoint(emulator, 'tracker-v1');
      const named = `${ECR}/app-versions/tracker-v1?configName=display_settings`;
      const put = await call('PUT', named, json({ brightness: 70 }));
      expect(put.status).toBe(200);
      const configId = put.headers.get('etag')!.replace(/"/g, '');
      expect((await call('GET', named)).body).toEqual({ brightness: 70 });
      expect((await call('GET', `${ECR}/app-versions/tracker-v1`)).body).toEqual({
        gpsIntervalSeconds: 30,
        geofence: 'city',
      });

      // A device that connects and speaks is pushed each configuration it has not applied: the named one and the
      // default one, each on its own topic.
      const device = await TestDevice.connect(emulator);
      const cmx = endpoint.topic('cmx');
      await device.subscribe(`${cmx}/config/json/#`);
      await device.request(`${endpoint.topic('epmx')}/get`, {});
      const push = await device.waitFor((m) => m.topic === `${cmx}/config/json/display_settings/status`);
      expect(push.payload).toEqual(message(configId, { brightness: 70 }));
      const defaultPush = await device.waitFor((m) => m.topic === `${cmx}/config/json/status`);
      expect(defaultPush.payload.config).toEqual({ gpsIntervalSeconds: 30, geofence: 'city' });

      // Over HTTP: the same exchange, the success of applied/json an empty 200.
      const viaHttp = await call('POST', `/kp1/tracker-v1/cmx/${endpoint.token}/config/json/display_settings`, {
        body: {},
      });
      expect(viaHttp.body).toEqual(message(configId, { brightness: 70 }));
      const applied = await call('POST', `/kp1/tracker-v1/cmx/${endpoint.token}/applied/json/display_settings`, {
        body: { configId },
      });
      expect([applied.status, applied.text]).toEqual([200, '']);
      const listing = (await call('GET', `${ECR}/endpoints/${endpoint.endpointId}`)).body;
      expect(listing).toEqual([
        expect.objectContaining({
          configName: 'display_settings',
          appliedConfigId: configId,
          defaultConfiguration: true,
        }),
      ]);
      expect((await call('DELETE', named)).status).toBe(204);
      expect((await call('DELETE', named)).status).toBe(404);
    },
  );

  it('refuses configuration names outside the rule, over REST and KP1', async () => {
    const path = `${ECR}/endpoints/meter-001/app-versions/smart-meter-v1`;
    for (const name of ['12', 'a.b', 'x'.repeat(65), '', 'status', 'error']) {
      const response = await call('PUT', `${path}?configName=${encodeURIComponent(name)}`, json({ a: 1 }));
      expect(response.status, name).toBe(400);
      expect(response.body.message).toMatch(/not a configuration name|configName/);
    }
    const device = await TestDevice.connect(emulator);
    const reply = await device.request(`kp1/smart-meter-v1/cmx/meter-001-token/config/json/${'x'.repeat(65)}`, {});
    expect(reply.payload).toEqual({ statusCode: 400, reasonPhrase: expect.stringMatching(/not a configuration name/) });
    // config/json/status is the default configuration's push topic: a device's publish there is dropped, never a
    // request for a configuration named "status".
    expect(isPlatformTopic('kp1/smart-meter-v1/cmx/meter-001-token/config/json/status')).toBe(true);
    expect(isPlatformTopic('kp1/smart-meter-v1/cmx/meter-001-token/applied/json/error')).toBe(true);
    // A last level of digits is a request id: the default configuration is answered.
    const byId = await device.request('kp1/smart-meter-v1/cmx/meter-001-token/config/json', {});
    expect(byId.payload.config).toEqual({ reportingIntervalSeconds: 60, tariff: 'day-night' });
  });
});
