import { afterEach, describe, expect, it } from 'vitest';
import { simulateDevice, SimulatorOptionsError, type SimulatedDevice } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const running: SimulatedDevice[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((device) => device.stop()));
});

describe('simulateDevice: named configurations (cmx config/json/<name>)', async () => {
  const emulator = await startTestEmulator();
  const rest = api(emulator);
  const path = '/ecr/api/v1/endpoints/tracker-001/app-versions/tracker-v1';

  it(
    'observes each named configuration beside the default one, applies what is offered and pushed, and reports ' + 'it',
    async () => {
      const first = await rest('PUT', `${path}?configName=network`, { body: { apn: 'internet' } });
      const firstId = first.headers.get('etag')!.replace(/"/g, '');
      const device = await simulateDevice({
        emulator,
        appVersion: 'tracker-v1',
        token: 'tracker-001-token',
        software: false,
        configNames: ['network', 'display'],
      });
      running.push(device);
      await device.next('config-applied', (e) => e.configName === 'network' && e.configId === firstId);
      await device.next('config', (e) => e.configName === 'display' && e.configId === '');
      const defaultApplied = await device.next('config-applied', (e) => e.configName === undefined);
      expect(device.configId).toBe(defaultApplied.configId);

      const second = await rest('PUT', `${path}?configName=display`, { body: { brightness: 40 } });
      const secondId = second.headers.get('etag')!.replace(/"/g, '');
      await device.next('config-applied', (e) => e.configName === 'display' && e.configId === secondId);
      const listing = (await rest('GET', '/ecr/api/v1/endpoints/tracker-001')).body as Array<Record<string, unknown>>;
      expect(listing.filter((i) => i.configName !== undefined).map((i) => [i.configName, i.appliedConfigId])).toEqual([
        ['display', secondId],
        ['network', firstId],
      ]);
      // The default configuration was not offered again by the named ones.
      expect(device.events.filter((e) => e.event === 'config-applied' && e.configName === undefined)).toHaveLength(1);
    },
  );

  it('refuses a name outside the rule before connecting', async () => {
    for (const name of ['7', 'status', 'error']) {
      await expect(
        simulateDevice({ emulator, appVersion: 'tracker-v1', token: 'tracker-001-token', configNames: [name] }),
      ).rejects.toThrow(SimulatorOptionsError);
    }
  });
});
