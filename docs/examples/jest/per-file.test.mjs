import { simulateDevice, startEmulator } from 'platform-emu';

let emulator;
let device;

// One emulator for this file: in memory, on free ports, so parallel workers never collide.
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => {} });
  // A device of the fixtures, connected over MQTT, answering its reboot commands.
  device = await simulateDevice({
    emulator,
    appVersion: 'smart-meter-v1',
    token: 'meter-001-token',
    rules: { commands: { reboot: { payload: { rebooted: true } } } },
  });
});

afterAll(async () => {
  await device?.stop();
  await emulator?.stop();
});

describe('my backend against the platform', () => {
  test('lists the fixture endpoints', async () => {
    const response = await fetch(`${emulator.url}/epr/api/v1/endpoints`);
    expect((await response.json()).totalElements).toBe(10);
  });

  test('gets the answer of a connected device', async () => {
    const response = await fetch(`${emulator.url}/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=10`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ rebooted: true });
  });
});
