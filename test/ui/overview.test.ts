import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadUiAssets } from '../../src/ui/assets.js';
import { services } from '../../src/services/index.js';
import { registerEndpoint } from '../gateway/device.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
// The dashboard's own module (plain ES module, no DOM touched when imported): what the overview page lists.
import { serviceRows } from '../../ui/pages/overview.js';

describe("the overview's services, from the health answer", async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('health lists every served service with its title, address and the records it holds', async () => {
    const health = (await call('GET', '/_emu/health')).body;
    expect(health.services.map((s: { name: string }) => s.name)).toEqual(services.map((s) => s.prefix));
    const epr = health.services.find((s: { name: string }) => s.name === 'epr');
    expect(epr).toEqual({
      name: 'epr',
      title: 'Endpoint register',
      url: `${emulator.url}/epr/api/v1`,
      records: expect.any(Number),
    });
    expect(epr.records).toBeGreaterThan(0);

    await registerEndpoint(emulator);
    const after = (await call('GET', '/_emu/health')).body.services.find((s: { name: string }) => s.name === 'epr');
    expect(after.records).toBeGreaterThan(epr.records);
  });

  it('the overview page builds its service rows from that answer, and the dashboard serves that module', async () => {
    const health = (await call('GET', '/_emu/health')).body;
    const rows = serviceRows(health);
    expect(rows.map((r: { name: string }) => r.name)).toEqual(services.map((s) => s.prefix));
    for (const row of rows) expect(row).toEqual(health.services.find((s: { name: string }) => s.name === row.name));

    const served = await fetch(`${emulator.url}/_emu/ui/assets/${loadUiAssets().hash}/pages/overview.js`);
    expect(await served.text()).toBe(readFileSync(new URL('../../ui/pages/overview.js', import.meta.url), 'utf8'));
  });
});
