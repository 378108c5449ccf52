import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url)))
  throw new Error('Run `npm run build` before the CLI tests.');

const cleanEnv = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_'))),
  NO_COLOR: '1',
});

describe('device simulate --telemetry end to end', async () => {
  const emulator = await startTestEmulator();

  it('each sample the simulator reports is readable at once through time-series/last', async () => {
    const args = [
      'device',
      'simulate',
      '--json',
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
    ];
    const sim = execa('node', [BIN, ...args], { reject: false, env: cleanEnv(), extendEnv: false });
    const sample = await new Promise<{ speed: number; n: number; timestamp: number }>((resolve, reject) => {
      let buffered = '';
      sim.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        for (const line of buffered.split('\n').slice(0, -1)) {
          const event = JSON.parse(line);
          if (event.event === 'telemetry') resolve(event.sample);
          if (event.event === 'error') reject(new Error(line));
        }
      });
      void sim.then((result) => reject(new Error(`simulate exited ${result.exitCode}: ${result.stderr}`)));
    });
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
    sim.kill('SIGINT');
    expect((await sim).exitCode).toBe(0);
  });
});
