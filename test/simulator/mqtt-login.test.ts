import { afterEach, describe, expect, it } from 'vitest';
import { DeviceConnectError, simulateDevice, SimulatorOptionsError, type SimulatedDevice } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const running: SimulatedDevice[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((device) => device.stop()));
});

describe('simulateDevice against a broker with mqttAuth: basic', async () => {
  const emulator = await startTestEmulator({ mqttAuth: 'basic' });
  const device = {
    emulator,
    appVersion: 'smart-meter-v1',
    token: 'meter-001-token',
    config: false,
    software: false,
  } as const;

  it('logs in with username and password, and answers commands', async () => {
    const simulated = await simulateDevice({ ...device, username: 'meter-001', password: 'meter-001-password' });
    running.push(simulated);
    const response = await api(emulator)('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=20', {
      body: { delay: 1 },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ delay: 1 });
    expect(await simulated.next('answered')).toMatchObject({ commandType: 'reboot', statusCode: 200 });
  });

  it('a refused login is a DeviceConnectError naming the CONNACK code and why', async () => {
    const wrong = await simulateDevice({ ...device, username: 'meter-001', password: 'wrong' }).catch(
      (err: unknown) => err,
    );
    expect(wrong).toBeInstanceOf(DeviceConnectError);
    expect((wrong as DeviceConnectError).failures).toEqual([
      {
        token: 'meter-001-token',
        message:
          `The broker at ${emulator.mqttUrl} refused the connection (CONNACK 4): bad user name or password ` +
          `(user name "meter-001").`,
      },
    ]);
    await expect(simulateDevice(device)).rejects.toThrow(
      `The broker at ${emulator.mqttUrl} refused the connection (CONNACK 5): not authorized: the broker requires a ` +
        'user name and password, or (MQTTS) a client certificate the credentials manager holds and that is neither ' +
        'suspended, revoked nor expired.',
    );
  });

  it('a password without a user name is an options error', async () => {
    await expect(simulateDevice({ ...device, password: 'meter-001-password' })).rejects.toThrow(SimulatorOptionsError);
  });
});
