import { execa } from 'execa';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { BIN, cleanEnv, cli, simulator } from '../helpers/device-cli.js';

describe('platform-emu device simulate against a broker with --mqtt-auth basic', async () => {
  const emulator = await startTestEmulator({ mqttAuth: 'basic' });
  const args = [
    '--app-version',
    'smart-meter-v1',
    '--token',
    'meter-001-token',
    '--no-config',
    '--no-software',
    '--url',
    emulator.url,
  ];

  it('--username and --password log in; a refused login is an error event and exit 1', async () => {
    const sim = simulator(...args, '--username', 'meter-001', '--password', 'meter-001-password');
    await sim.next('connected');
    expect(
      (
        await api(emulator)('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=20', {
          body: { n: 1 },
        })
      ).body,
    ).toEqual({ n: 1 });
    expect((await sim.interrupt()).exitCode).toBe(0);

    const wrong = await cli('device', 'simulate', '--json', ...args, '--username', 'meter-001', '--password', 'wrong');
    expect(wrong.exitCode).toBe(1);
    expect(JSON.parse(wrong.stdout.trim().split('\n')[0])).toMatchObject({
      event: 'error',
      token: 'meter-001-token',
      message:
        `The broker at ${emulator.mqttUrl} refused the connection (CONNACK 4): bad user name or password (user ` +
        `name "meter-001").`,
    });
  });
});

describe('platform-emu device simulate against `platform-emu start`', () => {
  it(
    'finds the emulator and its MQTT port through the data directory, and exits 1 when the emulator goes ' + 'away',
    async () => {
      const data = await mkdtemp(join(tmpdir(), 'device-start-'));
      const server = execa('node', [BIN, 'start', '--port', '0', '--mqtt-port', '0', '--data', data, '--quiet'], {
        reject: false,
        env: cleanEnv(),
        extendEnv: false,
      });
      await new Promise<void>((resolve) => server.stdout!.once('data', () => resolve()));

      const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--data', data);
      await sim.next('connected');
      const called = await cli(
        'call',
        'POST',
        '/endpoints/meter-001/commands/reboot?waitTimeout=20',
        '-d',
        '{"in":5}',
        '--data-dir',
        data,
      );
      expect(called.exitCode).toBe(0);
      expect(JSON.parse(called.stdout)).toEqual({ in: 5 });

      server.kill('SIGINT');
      expect((await server).exitCode).toBe(0);
      const result = await sim.proc;
      expect(result.exitCode).toBe(1);
      expect(sim.events.find((e) => e.event === 'error')?.message).toContain('lost');
    },
  );
});
