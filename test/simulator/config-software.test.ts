import { afterEach, describe, expect, it } from 'vitest';
import {
  simulateDevice,
  SimulatorOptionsError,
  type DeviceEvent,
  type SimulatedDevice,
  type SimulateDeviceOptions,
} from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const running: SimulatedDevice[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((device) => device.stop()));
});

const offerEvents = [
  'config',
  'config-applied',
  'config-rejected',
  'software',
  'software-applied',
  'software-rejected',
];
const offersOf = (device: SimulatedDevice) =>
  device.events.filter((e) => offerEvents.includes(e.event)).map(({ token: _token, ...rest }) => rest);

describe('simulateDevice: configuration (cmx) and software (cmx_ota)', async () => {
  const emulator = await startTestEmulator();
  const rest = api(emulator);
  const simulate = async (options: Omit<SimulateDeviceOptions, 'emulator'>) => {
    const device = await simulateDevice({ emulator, ...options });
    running.push(device);
    return device;
  };
  /** A command round trip: every message the emulator sent the device before it has been handled. */
  let trips = 0;
  const roundTrip = async (device: SimulatedDevice, endpointId: string) => {
    const commandType = `sync${++trips}`;
    const response = await rest('POST', `/cex/api/v1/endpoints/${endpointId}/commands/${commandType}?waitTimeout=20`, {
      body: {},
    });
    expect(response.status).toBe(200);
    await device.next('answered', (e) => e.commandType === commandType);
  };
  const listing = async (endpointId: string) =>
    (await rest('GET', `/ecr/api/v1/endpoints/${endpointId}`)).body as Array<Record<string, any>>;

  it(
    'applies the configuration offered on start and each one pushed later, once each, and reports them ' + 'applied',
    async () => {
      const device = await simulate({ appVersion: 'smart-meter-v1', token: 'meter-001-token', software: false });
      // Resolved only once the first offer was applied.
      const [first] = await listing('meter-001');
      expect(offersOf(device)).toEqual([
        { event: 'config', configId: first.configId, config: { reportingIntervalSeconds: 60, tariff: 'day-night' } },
        { event: 'config-applied', configId: first.configId },
      ]);
      expect(device.configId).toBe(first.configId);
      expect(first).toMatchObject({ appliedConfigId: first.configId, appliedDate: expect.any(String) });

      const put = await rest('PUT', '/ecr/api/v1/endpoints/meter-001/app-versions/smart-meter-v1', {
        body: { reportingIntervalSeconds: 30, tariff: 'flat' },
      });
      expect(put.status).toBe(204);
      const pushed = await device.next('config', (e) => e.configId !== first.configId);
      expect(pushed.config).toEqual({ reportingIntervalSeconds: 30, tariff: 'flat' });
      await device.next('config-applied', (e) => e.configId === pushed.configId);
      expect(device.configId).toBe(pushed.configId);
      const [second] = await listing('meter-001');
      expect(second).toMatchObject({ configId: pushed.configId, appliedConfigId: pushed.configId });

      // The push came on the plain topic and on the observe request's reply topic: handled once.
      await roundTrip(device, 'meter-001');
      expect(offersOf(device).filter((e) => e.event === 'config')).toHaveLength(2);
    },
  );

  it('shows "no configuration" once, and again only after a configuration came and went', async () => {
    // smart-meter-v2 has no default configuration, and meter-005 none of its own.
    const device = await simulate({ appVersion: 'smart-meter-v2', token: 'meter-005-token', software: false });
    expect(offersOf(device)).toEqual([{ event: 'config', configId: '', config: null }]);
    expect(device.configId).toBeUndefined();
    const none = await device.next('config');

    expect(
      (await rest('PUT', '/ecr/api/v1/endpoints/meter-005/app-versions/smart-meter-v2', { body: { tariff: 'flat' } }))
        .status,
    ).toBe(201);
    const own = await device.next('config', (e) => e.configId !== '');
    await device.next('config-applied', (e) => e.configId === own.configId);
    expect((await rest('DELETE', '/ecr/api/v1/endpoints/meter-005/app-versions/smart-meter-v2')).status).toBe(204);
    await device.next('config', (e) => e.configId === '' && e !== none);
    await roundTrip(device, 'meter-005');
    expect(offersOf(device)).toEqual([
      { event: 'config', configId: '', config: null },
      { event: 'config', configId: own.configId, config: { tariff: 'flat' } },
      { event: 'config-applied', configId: own.configId },
      { event: 'config', configId: '', config: null },
    ]);
    // Applied means what the device runs: "no configuration" is never reported (applied/json needs a configId).
    expect(device.configId).toBe(own.configId);
  });

  it('applies each software version offered in turn, following the upgrade chain the emulator pushes', async () => {
    const device = await simulate({ appVersion: 'smart-meter-v1', token: 'meter-002-token', config: false });
    await device.next('software', (e) => e.version === '');
    expect(offersOf(device)).toEqual([
      {
        event: 'software',
        version: '1.0.0',
        specification: { url: 'https://firmware.example.com/smart-meter/1.0.0.bin', size: 524288 },
      },
      { event: 'software-applied', version: '1.0.0' },
      {
        event: 'software',
        version: '1.1.0',
        specification: { url: 'https://firmware.example.com/smart-meter/1.1.0.bin', size: 524288 },
      },
      { event: 'software-applied', version: '1.1.0' },
      { event: 'software', version: '', specification: null },
    ]);
    expect(device.softwareVersion).toBe('1.1.0');
    expect((await rest('GET', '/epr/api/v1/endpoints/meter-002?include=metadata')).body.metadata.softwareVersion).toBe(
      '1.1.0',
    );

    // New software reaching it is pushed and applied too.
    const created = await rest('POST', '/otao/api/v1/applications/smart-meter/software/1.2.0', {
      body: { upgradableFrom: ['1.1.0'], rolloutStrategy: 'general', specification: { build: 7 } },
    });
    expect(created.status).toBe(201);
    expect(await device.next('software', (e) => e.version === '1.2.0')).toMatchObject({ specification: { build: 7 } });
    await device.next('software-applied', (e) => e.version === '1.2.0');
    expect(device.softwareVersion).toBe('1.2.0');
    expect((await rest('GET', '/epr/api/v1/endpoints/meter-002?include=metadata')).body.metadata.softwareVersion).toBe(
      '1.2.0',
    );
  });

  it(
    "'reject' reports every offer rejected with 400: the registry records it, the software stays as it " + 'was',
    async () => {
      const device = await simulate({
        appVersion: 'smart-meter-v1',
        token: 'meter-003-token',
        config: 'reject',
        software: 'reject',
      });
      expect(offersOf(device)).toEqual([
        { event: 'config', configId: expect.any(String), config: { reportingIntervalSeconds: 900, tariff: 'flat' } },
        {
          event: 'config-rejected',
          configId: expect.any(String),
          statusCode: 400,
          reasonPhrase: 'Rejected by the simulated device.',
        },
        { event: 'software', version: '1.0.0', specification: expect.any(Object) },
        {
          event: 'software-rejected',
          version: '1.0.0',
          statusCode: 400,
          reasonPhrase: 'Rejected by the simulated device.',
        },
      ]);
      const rejectedId = (offersOf(device)[1] as { configId: string }).configId;
      const [item] = await listing('meter-003');
      expect(item).toMatchObject({
        rejection: { configId: rejectedId, statusCode: 400, reasonPhrase: 'Rejected by the simulated device.' },
      });
      expect(item.appliedConfigId).toBeUndefined();
      expect(device.configId).toBeUndefined();
      expect(device.softwareVersion).toBeUndefined();
      expect(
        (await rest('GET', '/epr/api/v1/endpoints/meter-003?include=metadata')).body.metadata.softwareVersion,
      ).toBeUndefined();
      // A rejection changes no offer, so nothing more is pushed.
      await roundTrip(device, 'meter-003');
      expect(offersOf(device)).toHaveLength(4);
    },
  );

  it('config: false and software: false ask for neither', async () => {
    const events: DeviceEvent[] = [];
    const device = await simulate({
      appVersion: 'tracker-v1',
      token: 'tracker-001-token',
      config: false,
      software: false,
      onEvent: (e) => events.push(e),
    });
    expect(events.map((e) => e.event)).toEqual(['connected']);
    await rest('PUT', '/ecr/api/v1/endpoints/tracker-001/app-versions/tracker-v1', { body: { gpsIntervalSeconds: 5 } });
    await roundTrip(device, 'tracker-001');
    expect(offersOf(device)).toEqual([]);
    expect((await listing('tracker-001'))[0].appliedConfigId).toBeUndefined();
  });

  it('refuses a handling other than true, false or "reject"', async () => {
    await expect(
      simulateDevice({ emulator, appVersion: 'tracker-v1', token: 'tracker-002-token', config: 'ignore' as never }),
    ).rejects.toThrow(SimulatorOptionsError);
    await expect(
      simulateDevice({ emulator, appVersion: 'tracker-v1', token: 'tracker-002-token', software: 'yes' as never }),
    ).rejects.toThrow(`software must be true, false or 'reject'; got "yes".`);
  });
});
