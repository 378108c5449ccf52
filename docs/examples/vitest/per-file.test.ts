import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from 'platform-emu';

// One emulator for this file: in memory, on free ports, so parallel workers never collide.
const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => {} });
afterAll(() => emulator.stop());
// Every test starts from the fixtures, with the real clock and no faults.
beforeEach(() => emulator.reset());

describe('my backend against the platform', () => {
  it('lists the fixture endpoints', async () => {
    const response = await fetch(`${emulator.url}/epr/api/v1/endpoints`);
    expect(response.status).toBe(200);
    expect((await response.json()).totalElements).toBe(10);
  });

  it('sees a command expire when its TTL has passed', async () => {
    const invoke = await fetch(`${emulator.url}/cex/api/v1/endpoints/meter-001/commands/reboot?commandTtl=60000&waitTimeout=0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const { commandId } = await invoke.json();
    await emulator.clock.advance('2m');
    const command = await fetch(`${emulator.url}/cex/api/v1/endpoints/meter-001/commands/reboot/${commandId}`);
    expect((await command.json()).status).toBe('expired');
  });

  it('copes with the platform failing', async () => {
    emulator.faults.add({ kind: 'http', path: '/epr/api/v1/endpoints', status: 503, count: 1 });
    expect((await fetch(`${emulator.url}/epr/api/v1/endpoints`)).status).toBe(503);
    expect((await fetch(`${emulator.url}/epr/api/v1/endpoints`)).status).toBe(200);
  });
});
