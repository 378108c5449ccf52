import { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { Kp1Device } from '../../src/index.js';
import { startTestEmulator } from '../helpers/emulator.js';

describe('Kp1Device', async () => {
  const emulator = await startTestEmulator();
  const connect = (token: string) => Kp1Device.connect({ mqttUrl: emulator.mqttUrl, appVersion: 'smart-meter-v2', token });

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

  it('a connection refused is an error, not a wait', async () => {
    await expect(Kp1Device.connect({ mqttUrl: 'mqtt://127.0.0.1:9', appVersion: 'smart-meter-v2', token: 'meter-006-token' })).rejects.toThrow(/ECONNREFUSED/);
  });
});
