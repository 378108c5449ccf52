import { createServer, type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import { afterAll, describe, expect, it } from 'vitest';
import { Kp1Device } from '../../src/index.js';

// How a device reads the topics it receives, against a plain aedes broker whose answers the test writes: the
// emulator's gateway never publishes most of these (a reply on a topic nobody asked on, a request id that is not a
// number), so only a broker of the test's own can show what the device does with them.
describe('Kp1Device: the topics of replies and pushes', async () => {
  const broker = await Aedes.createBroker();
  const server = createServer((socket) => broker.handle(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const mqttUrl = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
  afterAll(async () => {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const base = 'kp1/app-v1/cex/tok-1';
  /** Publishes as the platform would: to every subscription of the device. */
  const publish = (topic: string, payload: unknown) =>
    new Promise<void>((resolve, reject) =>
      broker.publish(
        {
          cmd: 'publish',
          topic,
          payload: Buffer.from(JSON.stringify(payload)),
          qos: 0,
          retain: false,
          dup: false,
        },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  /** The next request the device publishes: its topic. */
  const nextRequest = () =>
    new Promise<string>((resolve) => {
      const seen = (packet: { topic: string }, client: unknown) => {
        if (!client || !packet.topic.startsWith('kp1/')) return;
        broker.off('publish', seen);
        resolve(packet.topic);
      };
      broker.on('publish', seen);
    });

  it('a reply ends <request topic>/<requestId>/status or /error; anything else under it is not one', async () => {
    const device = await Kp1Device.connect({ mqttUrl, appVersion: 'app-v1', token: 'tok-1' });
    try {
      const first = nextRequest();
      const results = device.request('cex', 'result/reboot', []);
      await publish(`${await first}/status`, {});
      expect(await results).toEqual({ ok: true, statusCode: 200, payload: {} });

      const asked = nextRequest();
      // A poll's resource begins like a command push (`command/<type>`); its reply has the request id after it.
      const reply = device.request('cex', 'command/reboot', {});
      const topic = await asked;
      expect(topic).toBe(`${base}/command/reboot/1`);
      const commands: unknown[] = [];
      device.on('commands', (type: string, list: unknown[]) => commands.push([type, list]));
      // Not its reply: levels that are not a request id, though a number parses from them (` 1`, `0x1`, `1e0`: 1),
      // and its id on the topic of the other resource asked.
      for (const id of ['x1', ' 1', '0x1', '1e0']) await publish(`${base}/command/reboot/${id}/status`, ['wrong']);
      await publish(`${base}/result/reboot/1/status`, ['wrong']);
      await publish(`${topic}/status`, [{ id: 7, payload: {} }]);
      expect(await reply).toEqual({ ok: true, statusCode: 200, payload: [{ id: 7, payload: {} }] });
      expect(commands).toEqual([]);

      const failing = nextRequest();
      const refused = device.request('cex', 'result/reboot', []);
      await publish(`${await failing}/error`, { statusCode: 404, reasonPhrase: 'no such command' });
      expect(await refused).toEqual({
        ok: false,
        statusCode: 404,
        reasonPhrase: 'no such command',
        payload: { statusCode: 404, reasonPhrase: 'no such command' },
      });
    } finally {
      await device.close();
    }
  });

  it('a command push is <base>/command/<commandType>/status, the type one whole level', async () => {
    const device = await Kp1Device.connect({ mqttUrl, appVersion: 'app-v1', token: 'tok-1' });
    try {
      const commands: unknown[] = [];
      const received = new Promise<void>((resolve) =>
        device.on('commands', (type: string, list: unknown[]) => {
          commands.push([type, list]);
          if (type === 'last') resolve();
        }),
      );
      await publish(`${base}/command/reboot/status`, [{ id: 1, payload: { delay: 5 } }]);
      // A type that is a number is still a type: a push has no request id.
      await publish(`${base}/command/42/status`, [{ id: 2, payload: {} }]);
      await publish(`${base}/command/last/status`, 'not a list');
      await received;
      expect(commands).toEqual([
        ['reboot', [{ id: 1, payload: { delay: 5 } }]],
        ['42', [{ id: 2, payload: {} }]],
        ['last', []],
      ]);
    } finally {
      await device.close();
    }
  });
});
