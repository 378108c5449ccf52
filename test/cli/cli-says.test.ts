import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { assertBuilt, BIN, cli } from '../store/emulator-process.js';

assertBuilt();

describe('what the CLI says', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];

  it('clock: a mistyped subcommand gets "did you mean", not an implicit show', async () => {
    const result = await cli(['clock', 'advence', '1h', ...url]);
    expect(result.stderr).toContain("unknown command 'advence'");
    expect(result.stderr).toContain('Did you mean advance?');
    expect(result.exitCode).toBe(2);
    const shown = await cli(['clock', ...url]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain('(real)');
  });

  it('device simulate: a telemetry range that is not one is refused with what a range looks like', async () => {
    const result = await cli(['device', 'simulate', '--token', 'meter-001-token', '--telemetry', 'x=1..', ...url]);
    expect(result.stderr).toContain('x: 1.. is not a range; a range is <low>..<high>');
    expect(result.exitCode).not.toBe(0);
  });

  it('status: faults as readable lines', async () => {
    await api(emulator)('POST', '/_emu/faults', { body: { kind: 'http', path: '/epr', status: 503, count: 3 } });
    const result = await cli(['status', ...url]);
    expect(result.stdout).toMatch(/Faults {3}\S+ {2}http {2}path=\/epr status=503 count=3/);
    expect(result.stdout).not.toContain('{"');
    await api(emulator)('DELETE', '/_emu/faults');
  });

  it('logs: leaves out its own reads, and --limit 0 prints no past entries', async () => {
    await api(emulator)('GET', '/epr/api/v1/endpoints/meter-001');
    await cli(['logs', ...url]);
    const again = await cli(['logs', '--json', ...url]);
    const paths = again.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { path?: string }).path);
    expect(paths).toContain('/epr/api/v1/endpoints/meter-001');
    expect(paths.some((path) => path?.startsWith('/_emu/requests'))).toBe(false);
    const none = await cli(['logs', '--limit', '0', ...url]);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe('');
    const asked = await cli(['logs', '--service', '_emu', '--json', ...url]);
    expect(asked.stdout).toContain('/_emu/requests');
  });
});

describe('mail --follow', () => {
  it('ends, exit 0, when the emulator stops', async () => {
    const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
    const child = execa('node', [BIN, 'mail', '--follow', '--url', emulator.url], {
      reject: false,
      env: { NO_COLOR: '1' },
      buffer: false,
    });
    let stderr = '';
    await new Promise<void>((waiting) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('Waiting for new mail')) waiting();
      });
    });
    await emulator.stop();
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(stderr).toContain('The emulator stopped');
  });
});
