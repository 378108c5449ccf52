import { describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import { startTestEmulator } from '../helpers/emulator.js';

/** MQTT versions (docs/devices.md): 3.1 and 3.1.1 are served with every KP1 rule; a v5 CONNECT is refused clearly. */
describe('MQTT protocol versions', async () => {
  const lines: string[] = [];
  let logged: (() => void) | undefined;
  const emulator = await startTestEmulator({
    log: (line: string) => {
      lines.push(line);
      if (/unacceptable protocol version/.test(line)) logged?.();
    },
  });

  it.each([
    ['MQTT 3.1', 3],
    ['MQTT 3.1.1', 4],
  ] as const)('%s clients speak KP1, request id 0 included', async (_name, protocolVersion) => {
    const client = await mqtt.connectAsync(emulator.mqttUrl, {
      protocolVersion,
      protocolId: protocolVersion === 3 ? 'MQIsdp' : 'MQTT',
      clientId: `v${protocolVersion}-${process.pid}`,
      reconnectPeriod: 0,
    });
    try {
      const topic = 'kp1/smart-meter-v1/epmx/meter-001-token/get/keys/0';
      const reply = new Promise<{ topic: string; payload: string }>((resolve) =>
        client.on('message', (t, payload) => {
          // The connection speaks for the endpoint: its pending configuration is pushed to it too.
          if (t.startsWith(topic)) resolve({ topic: t, payload: payload.toString('utf8') });
        }),
      );
      await client.subscribeAsync(`${topic}/+`, { qos: 1 });
      await client.publishAsync(topic, '{}', { qos: 1 });
      const { topic: replyTopic, payload } = await reply;
      expect(replyTopic).toBe(`${topic}/status`);
      expect(JSON.parse(payload)).toContain('serial');
    } finally {
      await client.endAsync();
    }
  });

  it(
    'refuses an MQTT 5 CONNECT with CONNACK 1 (unacceptable protocol version), which the client reports, and ' +
      'logs why',
    async () => {
      const seen = new Promise<void>((resolve) => (logged = resolve));
      const refused = mqtt.connectAsync(emulator.mqttUrl, { protocolVersion: 5, reconnectPeriod: 0 });
      await expect(refused).rejects.toMatchObject({
        code: 1,
        message: expect.stringMatching(/Unacceptable protocol version/i),
      });
      await seen;
      expect(lines.some((line) => /speaks MQTT 3\.1 and 3\.1\.1/.test(line))).toBe(true);
    },
  );
});
