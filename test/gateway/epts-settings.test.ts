import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, TestDevice } from './device.js';

const settingsPath = (app: string, version: string) =>
  `/tekton/api/v1/app-configs/applications/${app}/app-versions/${version}`;

describe('time series by the application version epts settings', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const setEpts = async (app: string, version: string, epts: unknown) => {
    const response = await call('PUT', settingsPath(app, version), { body: epts === undefined ? {} : { epts } });
    expect(response.status).toBeLessThan(300);
  };
  const seriesNames = async (app: string) =>
    (
      (await call('GET', `/epts/api/v1/time-series/config?applicationNames=${app}`)).body[app] as Array<{
        name: string;
      }>
    ).map((d) => d.name);
  const last = async (app: string, endpointId: string, names: string) =>
    (
      await call(
        'GET',
        `/epts/api/v1/applications/${app}/time-series/last?endpointId=${endpointId}&timeSeriesName=${names}`,
      )
    ).body[endpointId];

  it(
    'a version without epts settings (a new application) extracts nothing: the sample is accepted, no series ' +
      'appear',
    async () => {
      await setEpts('smart-meter', 'smart-meter-v1', undefined);
      const before = await seriesNames('smart-meter');
      const endpoint = await registerEndpoint(emulator, 'smart-meter-v1');
      const device = await TestDevice.connect(emulator);
      const reply = await device.request(`${endpoint.topic('dcx')}/json`, {
        temperature: 23,
        humidity: 48,
        mode: 'eco',
      });
      expect([reply.ok, reply.payload]).toEqual([true, undefined]);
      expect(await seriesNames('smart-meter')).toEqual(before);
    },
  );

  it(
    'configured series map value paths (location → lat/lon), the time comes from the configured path, auto~ ' +
      'from numeric fields',
    async () => {
      await setEpts('tracker', 'tracker-v1', {
        autoExtract: true,
        timestamp: { path: 'ts', format: 'iso8601' },
        timeSeries: { location: { values: { lat: 'location.lat', lon: 'location.lon' } } },
      });
      const endpoint = await registerEndpoint(emulator, 'tracker-v1');
      const device = await TestDevice.connect(emulator);
      // The batch of the platform's MQTT topic reference.
      const sample = (ts: string, temperature: number) => ({
        ts,
        temperature,
        humidity: 73,
        location: { lat: 34.1340258, lon: -118.3238652 },
      });
      const reply = await device.request(`${endpoint.topic('dcx')}/json`, [
        sample('2019-04-26T15:41:07+0000', 21),
        sample('2019-04-26T16:41:07+0000', 21.5),
      ]);
      expect(reply.ok).toBe(true);
      expect(await last('tracker', endpoint.endpointId, 'location,auto~temperature,auto~humidity')).toEqual({
        location: [{ timestamp: '2019-04-26T16:41:07.000Z', values: { lat: 34.1340258, lon: -118.3238652 } }],
        'auto~temperature': [{ timestamp: '2019-04-26T16:41:07.000Z', values: { value: 21.5 } }],
        'auto~humidity': [{ timestamp: '2019-04-26T16:41:07.000Z', values: { value: 73 } }],
      });
      const names = await seriesNames('tracker');
      expect(names).toEqual(expect.arrayContaining(['location', 'auto~temperature', 'auto~humidity']));
      // The emulator's per-field series are not made unless fieldSeries asks, and auto~ never takes the time field.
      expect(names).not.toContain('temperature');
      expect(names).not.toContain('auto~ts');

      // A sample without every path of a series is no point of it.
      await device.request(`${endpoint.topic('dcx')}/json`, { ts: '2019-04-27T00:00:00Z', location: { lat: 1 } });
      expect((await last('tracker', endpoint.endpointId, 'location')).location[0].timestamp).toBe(
        '2019-04-26T16:41:07.000Z',
      );

      // Fallback "fail" (the platform console's default): a sample without the time is refused.
      const refused = await device.request(`${endpoint.topic('dcx')}/json`, { temperature: 20 });
      expect(refused.payload).toEqual({
        statusCode: 400,
        reasonPhrase: expect.stringMatching(/has no ts.*fallback "fail"/),
      });
      const wrongFormat = await device.request(`${endpoint.topic('dcx')}/json`, { ts: 1556293267000, temperature: 20 });
      expect(wrongFormat.payload.reasonPhrase).toMatch(/ts must be an ISO 8601 datetime/);
    },
  );

  it('epoch-seconds and the receipt-time fallback; plain/<metric> over HTTP follows the same settings', async () => {
    await setEpts('smart-meter', 'smart-meter-v2', {
      autoExtract: true,
      timestamp: { path: 'meta.time', format: 'epoch-seconds', fallback: 'receipt-time' },
    });
    const endpoint = await registerEndpoint(emulator, 'smart-meter-v2');
    const dcx = `/kp1/smart-meter-v2/dcx/${endpoint.token}`;
    const posted = await call('POST', `${dcx}/json`, { body: { meta: { time: 1556293267 }, load: 3 } });
    expect([posted.status, posted.text]).toEqual([200, '']);
    expect(await last('smart-meter', endpoint.endpointId, 'auto~load')).toEqual({
      'auto~load': [{ timestamp: '2019-04-26T15:41:07.000Z', values: { value: 3 } }],
    });
    const before = Date.now();
    expect((await call('POST', `${dcx}/json`, { body: { load: 4 } })).status).toBe(200);
    const received = await last('smart-meter', endpoint.endpointId, 'auto~load');
    expect(Date.parse(received['auto~load'][0].timestamp)).toBeGreaterThanOrEqual(before - 1000);
    expect((await call('POST', `${dcx}/plain/pressure`, { rawBody: '1013' })).status).toBe(200);
    expect((await last('smart-meter', endpoint.endpointId, 'auto~pressure'))['auto~pressure'][0].values).toEqual({
      value: 1013,
    });
    expect(await seriesNames('smart-meter')).not.toContain('pressure');
  });

  it('unusable settings are a 503 naming the fault, and store nothing', async () => {
    await setEpts('smart-meter', 'smart-meter-v1', { timeSeries: { location: { values: { lat: 5 } } } });
    const endpoint = await registerEndpoint(emulator, 'smart-meter-v1');
    const device = await TestDevice.connect(emulator);
    const reply = await device.request(`${endpoint.topic('dcx')}/json`, { location: { lat: 1 } });
    expect(reply.payload).toEqual({
      statusCode: 503,
      reasonPhrase: expect.stringMatching(
        /time-series settings of application version smart-meter-v1.*values\.lat must be a dot path/,
      ),
    });
    expect(await seriesNames('smart-meter')).not.toContain('location');
  });
});
