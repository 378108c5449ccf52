import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import { cli, rulesFile, simulateArgs } from '../helpers/device-cli.js';

describe('platform-emu device', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];

  it(
    'a rules file that does not validate, a bad --telemetry spec or a fleet without patterns is a usage error ' +
      '(exit 2)',
    async () => {
      const rules = await rulesFile({ commands: { reboot: { statusCode: '200', dely: 5 } } });
      const result = await cli(...simulateArgs('smart-meter-v1', 'meter-001-token', '--rules', rules, ...url));
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`The rules in ${rules} are not valid:`);
      expect(result.stderr).toContain('/commands/reboot/statusCode: must be integer');
      expect(result.stderr).toContain('unknown field "dely"');
      const notJson = await cli(
        ...simulateArgs('smart-meter-v1', 'meter-001-token', '--rules', await rulesFile('{'), ...url),
      );
      expect(notJson.exitCode).toBe(2);
      const telemetry = await cli(
        ...simulateArgs('smart-meter-v1', 'meter-001-token', '--telemetry', 'temp=30..20', ...url),
      );
      expect(telemetry.exitCode).toBe(2);
      expect(telemetry.stderr).toContain('goes down');
      const fleet = await cli(...simulateArgs('smart-meter-v1', 'meter-001-token', '--fleet', '3', ...url));
      expect(fleet.exitCode).toBe(2);
      expect(fleet.stderr).toContain('{nnn}');
    },
  );

  it(
    'exits 1 with an error event when it cannot connect, or the token belongs to another application ' + 'version',
    async () => {
      const refused = await cli(
        ...simulateArgs('smart-meter-v1', 'meter-001-token', '--json', '--mqtt-url', 'mqtt://127.0.0.1:9'),
      );
      expect(refused.exitCode).toBe(1);
      expect(JSON.parse(refused.stdout.trim().split('\n')[0])).toMatchObject({
        event: 'error',
        token: 'meter-001-token',
        message: expect.stringContaining('Cannot connect'),
      });

      const wrongVersion = await cli(...simulateArgs('smart-meter-v1', 'meter-004-token', '--json', ...url));
      expect(wrongVersion.exitCode).toBe(1);
      expect(JSON.parse(wrongVersion.stdout.trim().split('\n')[0])).toMatchObject({
        event: 'error',
        message: expect.stringContaining('smart-meter-v2'),
      });
    },
  );
});
