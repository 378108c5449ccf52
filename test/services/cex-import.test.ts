import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('command deadlines after a state import', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('an imported command whose retention has passed is deleted without a restart', async () => {
    const invoked = await call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', {
      body: { delay: 1 },
    });
    expect(invoked.status).toBe(202);
    const url = invoked.headers.get('location')!.slice(emulator.url.length);
    expect((await call('GET', url)).status).toBe(200);

    const state = (await call('GET', '/_emu/state')).body;
    for (const command of Object.values<any>(state.collections.commands))
      command.retainUntil = new Date(Date.now() + 3000).toISOString();
    expect((await call('PUT', '/_emu/state', { body: state })).status).toBe(204);
    expect((await call('GET', url)).status).toBe(200);

    await expect.poll(async () => (await call('GET', url)).status, { timeout: 15_000, interval: 100 }).toBe(404);
  });
});
