import { afterAll, describe, expect, it } from 'vitest';
import { simulateDevice } from '../../src/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { assertBuilt, cli } from '../store/emulator-process.js';

assertBuilt();

describe('platform-emu call: what a device answered', async () => {
  const emulator = await startTestEmulator();
  const device = await simulateDevice({
    emulator,
    appVersion: 'smart-meter-v1',
    token: 'meter-001-token',
    rules: {
      commands: {
        reboot: { statusCode: 503, reasonPhrase: 'Battery too low' },
        locate: { statusCode: 404, reasonPhrase: 'No GPS fix' },
        ping: { statusCode: 200 },
      },
    },
  });
  afterAll(() => device.stop());
  const url = ['--url', emulator.url];

  it('prints the device status and reason and exits 5 for a device status of 500 or more', async () => {
    const result = await cli([
      'call',
      'POST',
      '/endpoints/meter-001/commands/reboot?waitTimeout=10',
      '-d',
      '{}',
      ...url,
    ]);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('200 OK');
    expect(result.stderr).toContain('the device answered 503 Battery too low');
    expect(result.exitCode).toBe(5);
  });

  it('exits 4 for a device status from 400 to 499, also through the prefixed path', async () => {
    const result = await cli([
      'call',
      'POST',
      '/cex/api/v1/endpoints/meter-001/commands/locate?waitTimeout=10',
      '-d',
      '{}',
      ...url,
    ]);
    expect(result.stderr).toContain('the device answered 404 No GPS fix');
    expect(result.exitCode).toBe(4);
  });

  it('carries the device status in --json, and a device success exits 0', async () => {
    const failed = await cli([
      'call',
      'POST',
      '/endpoints/meter-001/commands/reboot?waitTimeout=10',
      '-d',
      '{}',
      '--json',
      ...url,
    ]);
    expect(JSON.parse(failed.stdout)).toEqual({
      status: 200,
      body: null,
      device: { statusCode: 503, reasonPhrase: 'Battery too low' },
    });
    expect(failed.exitCode).toBe(5);
    const fine = await cli(['call', 'POST', '/endpoints/meter-001/commands/ping?waitTimeout=10', '-d', '{}', ...url]);
    expect(fine.stderr).toContain('the device answered 200');
    expect(fine.exitCode).toBe(0);
  });
});
