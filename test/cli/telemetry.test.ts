import { describe, expect, it } from 'vitest';
import { simulator } from '../helpers/device-cli.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('device simulate --telemetry end to end', async () => {
  const emulator = await startTestEmulator();

  it('each sample the simulator reports is readable at once through time-series/last', async () => {
    const sim = simulator(
      '--app-version',
      'tracker-v1',
      '--token',
      'tracker-003-token',
      '--telemetry',
      'speed=10..90,n=seq',
      '--interval',
      '50',
      '--url',
      emulator.url,
    );
    const { sample } = await sim.next('telemetry');
    // The simulator reports a sample once the emulator acknowledged it: no waiting needed.
    const at = new Date(sample.timestamp).toISOString();
    const stored = await api(emulator)(
      'GET',
      `/epts/api/v1/applications/tracker/time-series/data?endpointId=tracker-003&timeSeriesName=speed,n` +
        `&fromDate=${at}&toDate=${at}&includeTime=both`,
    );
    expect(stored.body).toEqual([
      {
        'tracker-003': {
          speed: [{ timestamp: at, values: { value: sample.speed } }],
          n: [{ timestamp: at, values: { value: sample.n } }],
        },
      },
    ]);
    const last = await api(emulator)(
      'GET',
      '/epts/api/v1/applications/tracker/time-series/last?endpointId=tracker-003&timeSeriesName=speed',
    );
    expect(Date.parse(last.body['tracker-003'].speed[0].timestamp)).toBeGreaterThanOrEqual(sample.timestamp);
    expect((await sim.interrupt()).exitCode).toBe(0);
  });
});
