import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { hasScript, inTerminal } from '../helpers/terminal.js';
import { cleanEnv, cli, simulateArgs } from '../helpers/device-cli.js';

describe('platform-emu device', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];
  const rest = api(emulator);

  it('--interactive without a terminal is a usage error (exit 2), not a prompt nobody can answer', async () => {
    const result = await cli(...simulateArgs('smart-meter-v1', 'meter-003-token', '--interactive', ...url));
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'platform-emu: --interactive needs a terminal (stdin is not a TTY); answer by --rules when running unattended.',
    );
    expect(result.stdout).toBe('');
  });

  it.skipIf(!hasScript)(
    '--interactive in a terminal asks what to answer, one command at a time; Ctrl-C stops it',
    async () => {
      const term = inTerminal(simulateArgs('smart-meter-v1', 'meter-003-token', '--interactive', ...url), cleanEnv());
      await term.shown('waiting for commands');
      const call = rest('POST', '/cex/api/v1/endpoints/meter-003/commands/ping?waitTimeout=30', { body: { x: 1 } });
      await term.shown('Answer?');
      term.type('\u001b[B\r'); // down: another status code and payload
      await term.shown('Status code');
      term.type('201\r');
      await term.shown('Reason phrase');
      term.type('Made\r');
      await term.shown('Response payload');
      term.type('{"y":2}\r');
      const response = await call;
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ y: 2 });
      await term.shown('answered ping');
      term.type('\u0003');
      expect((await term.exited).exitCode).toBe(0);
      expect(term.screen()).toContain('stopped 1 device; 1 command answered');
    },
  );
});
