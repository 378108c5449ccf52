import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { Kp1Device } from '../../src/index.js';
import { simulator } from '../helpers/device-cli.js';
import { startTestEmulator } from '../helpers/emulator.js';

describe("the QoS of a simulated device's requests", async () => {
  const emulator = await startTestEmulator();
  const watchers: mqtt.MqttClient[] = [];
  afterEach(async () => {
    await Promise.all(watchers.splice(0).map((watcher) => watcher.endAsync()));
  });

  /**
   * The QoS of the first reply to a `tsx` request of this token, as a client that knows the token and listens at
   * QoS 1 receives it: a reply has its request's QoS (spec 4), and MQTT delivers the lower of that and the
   * subscription's.
   */
  async function firstReplyQos(appVersion: string, token: string): Promise<{ qos: Promise<number> }> {
    const watcher = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    watchers.push(watcher);
    await watcher.subscribeAsync(`kp1/${appVersion}/tsx/${token}/+/status`, { qos: 1 });
    return {
      qos: new Promise((resolve) => watcher.once('message', (_topic, _payload, packet) => resolve(packet.qos))),
    };
  }

  it('Kp1Device publishes at QoS 0 by default, as the platform tutorial clients do, and at QoS 1 when asked', async () => {
    for (const [qos, appVersion, token] of [
      [undefined, 'smart-meter-v1', 'meter-003-token'],
      [1, 'smart-meter-v2', 'meter-004-token'],
    ] as const) {
      const replied = await firstReplyQos(appVersion, token);
      const device = await Kp1Device.connect({ mqttUrl: emulator.mqttUrl, appVersion, token, qos });
      expect((await device.time()).ok).toBe(true);
      expect(await replied.qos).toBe(qos ?? 0);
      await device.close();
    }
  });

  it('device simulate publishes at QoS 0 by default and at --qos 1, in worker threads too', async () => {
    const cases = [
      { appVersion: 'smart-meter-v2', flags: ['--token', 'meter-005-token'], tokens: ['meter-005-token'], qos: 0 },
      {
        appVersion: 'smart-meter-v1',
        flags: ['--fleet', '2', '--workers', '2', '--token', 'meter-00{n}-token', '--qos', '1'],
        tokens: ['meter-001-token', 'meter-002-token'],
        qos: 1,
      },
    ];
    for (const { appVersion, flags, tokens, qos } of cases) {
      const replies = await Promise.all(tokens.map((token) => firstReplyQos(appVersion, token)));
      const sim = simulator('--app-version', appVersion, ...flags, '--no-config', '--url', emulator.url);
      expect(await Promise.all(replies.map((reply) => reply.qos))).toEqual(tokens.map(() => qos));
      await sim.next('connected');
      expect((await sim.interrupt()).exitCode).toBe(0);
    }
  });
});
