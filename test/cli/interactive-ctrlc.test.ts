import { describe, expect, it } from 'vitest';
import { cleanEnv, simulateArgs } from '../helpers/device-cli.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { hasScript, inTerminal } from '../helpers/terminal.js';

describe('device simulate --interactive, Ctrl-C with commands queued', async () => {
  const emulator = await startTestEmulator();
  const rest = api(emulator);

  it.skipIf(!hasScript)(
    'ends the whole prompt queue and exits 0: no prompt opens for the command still queued',
    async () => {
      const term = inTerminal(
        simulateArgs('smart-meter-v1', 'meter-003-token', '--interactive', '--url', emulator.url),
        cleanEnv(),
      );
      try {
        await term.shown('waiting for commands');
        // waitTimeout=0: each caller gets 202 at once and the command stays pending for the device to answer.
        const invoke = (type: string) =>
          rest('POST', `/cex/api/v1/endpoints/meter-003/commands/${type}?waitTimeout=0`, { body: { n: 1 } });
        expect((await invoke('firstQueued')).status).toBe(202);
        expect((await invoke('secondQueued')).status).toBe(202);
        // The prompt's question (the event lines also name the commands, without the token and colon before them).
        const promptFor = (type: string) => `meter-003-token: command ${type} #`;
        await term.shown(promptFor('firstQueued'));
        // The second command has reached the device (its event line) and waits behind the first prompt.
        await term.shown('meter-003-token  command secondQueued #');
        term.type('\u0003');
        // Whichever comes first: the process ends (right) or the second command's prompt opens (the bug).
        const outcome = await Promise.race([
          term.exited.then((result) => ({ exitCode: result.exitCode })),
          term.shown(promptFor('secondQueued')).then(() => 'second prompt shown' as const),
        ]);
        expect(outcome, term.screen()).toEqual({ exitCode: 0 });
        expect(term.screen()).not.toContain(promptFor('secondQueued'));
        expect(term.screen()).toContain('stopped 1 device');
      } finally {
        term.kill();
      }
    },
  );
});
