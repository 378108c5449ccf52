import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from './helpers/emulator.js';

describe('an in-memory emulator with the default fixtures', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('is ready and lists the fixture endpoints of the default tenant', async () => {
    expect((await call('GET', '/_emu/health')).body.status).toBe('ready');
    const list = await call('GET', '/epr/api/v1/endpoints');
    expect(list.status).toBe(200);
    expect(list.body.totalElements).toBe(10);
  });
});
