import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { KP1_REQUESTS_WAITING } from '../../src/gateway/mqtt-requests.js';
import { startEmulator } from '../../src/index.js';
import { floodRequests } from './device.js';

const FLOOD = KP1_REQUESTS_WAITING * 8;
const TOPIC = 'kp1/smart-meter-v1/tsx/meter-001-token';

describe('a device that publishes KP1 requests without waiting for their replies', async () => {
  const logged: string[] = [];
  const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: (line) => logged.push(line) });
  afterAll(() => emulator.stop());

  it(`is held back once ${KP1_REQUESTS_WAITING} requests wait (logged once), and gets every reply, in order`, async () => {
    const client = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    try {
      // The connection speaks for the endpoint: its configuration and software pushes come too, and are left out.
      const replies = await floodRequests(client, TOPIC, FLOOD);
      expect(replies).toEqual(Array.from({ length: FLOOD }, (_, i) => `${TOPIC}/${i + 1}/status`));
      expect(logged.filter((line) => line.includes('sends KP1 requests faster than they are answered'))).toEqual([
        expect.stringContaining(`${KP1_REQUESTS_WAITING} are waiting, so its connection is not read`),
      ]);
      // The connection is read again: one more request is answered at once.
      const next = new Promise<string>((resolve) =>
        client.on('message', (topic) => topic.endsWith(`/${FLOOD + 1}/status`) && resolve(topic)),
      );
      client.publish(`${TOPIC}/${FLOOD + 1}`, '{}', { qos: 0 });
      expect(await next).toBe(`${TOPIC}/${FLOOD + 1}/status`);
    } finally {
      await client.endAsync();
    }
  });
});
