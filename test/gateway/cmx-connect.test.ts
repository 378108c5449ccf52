import { describe, expect, it } from 'vitest';
import { ECR, json } from '../helpers/ecr.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, TestDevice } from './device.js';

type Registered = Awaited<ReturnType<typeof registerEndpoint>>;

/** Where a push without a request goes: `kp1/<v>/<cmx|cmx_ota>/<token>/config/json/status`. */
const pushTopic = (endpoint: Registered, extension: 'cmx' | 'cmx_ota') =>
  `${endpoint.topic(extension)}/config/json/status`;

/**
 * Requests at QoS 1: their replies travel as the pushes do (QoS 1, to this connection), so once the reply is in, any
 * push the gateway sent before it has arrived too.
 */
const settle = async (device: TestDevice, endpoint: Registered) => {
  await device.request(endpoint.topic('tsx'), '', 1);
};

describe('cmx on connecting: a device is told the configuration it has not applied (spec 4)', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it(
    'a configuration set over REST while the device is offline reaches it on its first message, exactly ' + 'once',
    async () => {
      const endpoint = await registerEndpoint(emulator, 'tracker-v1');
      const put = await call(
        'PUT',
        `${ECR}/endpoints/${endpoint.endpointId}/app-versions/tracker-v1`,
        json({ gpsIntervalSeconds: 5 }),
      );
      expect(put.status).toBe(201);
      const configId = put.headers.get('etag')!.replace(/"/g, '');

      // As the platform's tutorial client: no subscription, a data sample without a request id as its first message.
      const device = await TestDevice.connect(emulator);
      await device.publish(`${endpoint.topic('dcx')}/json`, { speed: 12 }, 1);
      const pushed = await device.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx'));
      expect(pushed).toMatchObject({ payload: { configId, config: { gpsIntervalSeconds: 5 } }, qos: 1 });

      await device.publish(`${endpoint.topic('dcx')}/json`, { speed: 13 }, 1);
      await settle(device, endpoint);
      await settle(device, endpoint);
      expect(device.onTopic(pushTopic(endpoint, 'cmx'))).toHaveLength(1);
    },
  );

  it(
    'a device that applied it gets nothing; one that did not, or rejected it, gets it again on its next ' +
      'connection',
    async () => {
      const endpoint = await registerEndpoint(emulator, 'tracker-v1');
      const versionDefault = {
        configId: expect.any(String),
        statusCode: 200,
        reasonPhrase: 'ok',
        config: { gpsIntervalSeconds: 30, geofence: 'city' },
      };

      const first = await TestDevice.connect(emulator);
      await settle(first, endpoint);
      const offered = await first.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx'));
      expect(offered.payload).toEqual(versionDefault);
      await first.close();

      // It never reported it: told again.
      const second = await TestDevice.connect(emulator);
      await settle(second, endpoint);
      expect((await second.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx'))).payload).toEqual(offered.payload);
      const rejected = await second.request(
        `${endpoint.topic('cmx')}/applied/json`,
        { configId: offered.payload.configId, statusCode: 400, reasonPhrase: 'no GPS' },
        1,
      );
      expect(rejected.ok).toBe(true);
      await second.close();

      const third = await TestDevice.connect(emulator);
      await settle(third, endpoint);
      expect((await third.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx'))).payload).toEqual(offered.payload);
      expect(
        (await third.request(`${endpoint.topic('cmx')}/applied/json`, { configId: offered.payload.configId }, 1)).ok,
      ).toBe(true);
      await third.close();

      const fourth = await TestDevice.connect(emulator);
      await settle(fourth, endpoint);
      await settle(fourth, endpoint);
      expect(fourth.onTopic(pushTopic(endpoint, 'cmx'))).toEqual([]);
      // A new configuration is pending again: pushed at once to the connected device (as before), and on connecting.
      const put = await call(
        'PUT',
        `${ECR}/endpoints/${endpoint.endpointId}/app-versions/tracker-v1`,
        json({ gpsIntervalSeconds: 7 }),
      );
      await fourth.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx') && m.payload.config.gpsIntervalSeconds === 7);
      await fourth.close();
      const fifth = await TestDevice.connect(emulator);
      await settle(fifth, endpoint);
      const again = await fifth.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx'));
      expect(again.payload).toEqual({
        configId: put.headers.get('etag')!.replace(/"/g, ''),
        statusCode: 200,
        reasonPhrase: 'ok',
        config: { gpsIntervalSeconds: 7 },
      });
    },
  );

  it('a first message that asks config/json gets the configuration in its reply and no push besides', async () => {
    const endpoint = await registerEndpoint(emulator, 'tracker-v1');
    const device = await TestDevice.connect(emulator);
    const asked = await device.request(`${endpoint.topic('cmx')}/config/json`, {}, 1);
    expect(asked.payload).toEqual({
      configId: expect.any(String),
      statusCode: 200,
      reasonPhrase: 'ok',
      config: { gpsIntervalSeconds: 30, geofence: 'city' },
    });
    await settle(device, endpoint);
    expect(device.onTopic(pushTopic(endpoint, 'cmx'))).toEqual([]);
  });

  it('a device subscribed to its topics receives the push once, through its subscription', async () => {
    const endpoint = await registerEndpoint(emulator, 'tracker-v1');
    const device = await TestDevice.connect(emulator);
    await device.subscribe(`kp1/+/+/${endpoint.token}/#`, 1);
    await settle(device, endpoint);
    await device.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx'));
    await settle(device, endpoint);
    expect(device.onTopic(pushTopic(endpoint, 'cmx'))).toHaveLength(1);
  });

  it('a device without any configuration is told nothing', async () => {
    const endpoint = await registerEndpoint(emulator, 'smart-meter-v2');
    const device = await TestDevice.connect(emulator);
    await settle(device, endpoint);
    await settle(device, endpoint);
    expect(device.onTopic(pushTopic(endpoint, 'cmx'))).toEqual([]);
  });
});

describe('cmx_ota on connecting: a device is told the software offered to it', async () => {
  const emulator = await startTestEmulator();

  it(
    'is pushed once per connection until the device runs the last version, also after a report as its first ' +
      'message',
    async () => {
      // The default fixtures offer a smart meter without a version 1.0.0, then 1.1.0, then nothing.
      const endpoint = await registerEndpoint(emulator, 'smart-meter-v1');
      const offers = (device: TestDevice) =>
        device.onTopic(pushTopic(endpoint, 'cmx_ota')).map((m) => m.payload.configId);

      const first = await TestDevice.connect(emulator);
      await settle(first, endpoint);
      const offered = await first.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx_ota'));
      expect(offered.payload).toEqual({
        configId: '1.0.0',
        statusCode: 200,
        reasonPhrase: 'ok',
        config: { url: 'https://firmware.example.com/smart-meter/1.0.0.bin', size: 524288 },
      });
      await settle(first, endpoint);
      expect(offers(first)).toEqual(['1.0.0']);
      await first.close();

      // It installed 1.0.0 while offline and says so first thing: the rollout pushes the next offer, to this
      // connection (it speaks for the endpoint from its first message on), and nothing is pushed besides.
      const second = await TestDevice.connect(emulator);
      expect((await second.request(`${endpoint.topic('cmx_ota')}/applied/json`, { configId: '1.0.0' }, 1)).ok).toBe(
        true,
      );
      await second.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx_ota'));
      await settle(second, endpoint);
      expect(offers(second)).toEqual(['1.1.0']);
      await second.close();

      // Reporting on boot what it runs changes no offer, so the rollout pushes nothing: 1.1.0 is pushed on connecting.
      const third = await TestDevice.connect(emulator);
      expect((await third.request(`${endpoint.topic('cmx_ota')}/applied/json`, { configId: '1.0.0' }, 1)).ok).toBe(
        true,
      );
      await third.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx_ota'));
      await settle(third, endpoint);
      expect(offers(third)).toEqual(['1.1.0']);
      expect((await third.request(`${endpoint.topic('cmx_ota')}/applied/json`, { configId: '1.1.0' }, 1)).ok).toBe(
        true,
      );
      await third.waitFor((m) => m.topic === pushTopic(endpoint, 'cmx_ota') && m.payload.configId === '');
      await third.close();

      const fourth = await TestDevice.connect(emulator);
      await settle(fourth, endpoint);
      await settle(fourth, endpoint);
      expect(offers(fourth)).toEqual([]);
    },
  );
});
