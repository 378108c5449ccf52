import { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import { deviceConnection } from '../../src/gateway/index.js';
import { Kp1Device } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('Kp1Device', async () => {
  const emulator = await startTestEmulator();
  const connect = (token: string) =>
    Kp1Device.connect({ mqttUrl: emulator.mqttUrl, appVersion: 'smart-meter-v2', token });

  it('sends with TCP noDelay, so that a PUBACK and a result do not wait on Nagle and a delayed ACK', async () => {
    const setNoDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    let sockets: Socket[];
    let device: Kp1Device | undefined;
    try {
      device = await connect('meter-004-token');
      sockets = (setNoDelay.mock.contexts as Socket[]).filter((_socket, i) => setNoDelay.mock.calls[i][0] !== false);
    } finally {
      setNoDelay.mockRestore();
    }
    // The broker's end of the connection has the MQTT port as its local port; the device's end has it as remote.
    expect(sockets.some((socket) => socket.remotePort === emulator.mqttPort)).toBe(true);
    expect((await device.time()).ok).toBe(true);
    await device.close();
  });

  it('a request cut short by close() rejects once, and no reply is left to reject unheard', async () => {
    const device = await connect('meter-005-token');
    expect((await device.time()).ok).toBe(true);
    const request = device.time();
    // The publish is on its way and waits for its PUBACK when the device closes.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([device.close(), expect(request).rejects.toThrow('The device was stopped.')]);
    await expect(device.time()).rejects.toThrow('The device was stopped.');
  });

  it(
    'observe() answers like request() and turns the pushes of that resource, on both topics, into push ' + 'events',
    async () => {
      const device = await Kp1Device.connect({
        mqttUrl: emulator.mqttUrl,
        appVersion: 'tracker-v1',
        token: 'tracker-001-token',
      });
      const pushes: Array<[string, string, unknown]> = [];
      device.on('push', (extension: string, resource: string, payload: unknown) =>
        pushes.push([extension, resource, payload]),
      );
      const first = await device.observe('cmx', 'config/json');
      expect(first).toMatchObject({
        ok: true,
        payload: {
          configId: expect.any(String),
          statusCode: 200,
          reasonPhrase: 'ok',
          config: { gpsIntervalSeconds: 30, geofence: 'city' },
        },
      });
      // Saying which configId it has: nothing new, `{}`.
      expect(
        (await device.observe('cmx', 'config/json', { configId: (first.payload as { configId: string }).configId }))
          .payload,
      ).toEqual({});

      const put = await api(emulator)('PUT', '/ecr/api/v1/endpoints/tracker-001/app-versions/tracker-v1', {
        body: { gpsIntervalSeconds: 5 },
      });
      expect(put.status).toBe(201);
      // The pushes were sent before the reply to a later request: on `config/json/status` and on the reply topic of
      // each observe request.
      expect((await device.time()).ok).toBe(true);
      const pushed = [
        'cmx',
        'config/json',
        { configId: expect.any(String), statusCode: 200, reasonPhrase: 'ok', config: { gpsIntervalSeconds: 5 } },
      ];
      expect(pushes).toEqual([pushed, pushed, pushed]);
      await device.close();
    },
  );

  it('its MQTT client id is random: the token, a credential, never shows in it', async () => {
    const [a, b] = [
      await connect('meter-004-token'),
      await Kp1Device.connect({ mqttUrl: emulator.mqttUrl, appVersion: 'smart-meter-v2', token: 'meter-005-token' }),
    ];
    await Promise.all([a.time(), b.time()]);
    const ids = ['meter-004', 'meter-005'].map(
      (endpointId) => deviceConnection(internalContext(emulator), endpointId)!.clientId!,
    );
    expect(ids[0]).toMatch(/^platform-emu-\d+-[0-9a-f]{16}$/);
    expect(ids[1]).toMatch(/^platform-emu-\d+-[0-9a-f]{16}$/);
    expect(ids[0]).not.toBe(ids[1]);
    expect(ids.join()).not.toContain('token');
    await Promise.all([a.close(), b.close()]);
  });

  it('a connection refused is an error, not a wait', async () => {
    await expect(
      Kp1Device.connect({ mqttUrl: 'mqtt://127.0.0.1:9', appVersion: 'smart-meter-v2', token: 'meter-006-token' }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
