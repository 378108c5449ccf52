import { execa } from 'execa';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Kp1Device, simulateDevice, SimulatorOptionsError } from '../../src/index.js';
import { BIN, simulateArgs } from '../helpers/device-cli.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { generateCertificate } from './helpers.js';

describe('devices over TLS', async () => {
  const emulator = await startTestEmulator({ tlsClientAuth: 'required' });
  const call = api(emulator);

  it('Kp1Device connects to mqttsUrl with ca, cert and key', async () => {
    const { certificateChain, privateKey } = await generateCertificate(emulator);
    const device = await Kp1Device.connect({
      mqttUrl: emulator.mqttsUrl,
      appVersion: 'smart-meter-v1',
      token: 'meter-001-token',
      ca: emulator.caCertificate,
      cert: certificateChain,
      key: privateKey,
    });
    expect((await device.time()).ok).toBe(true);
    await device.close();
  });

  it(
    'simulateDevice({ tls: true }) uses the handle the MQTTS URL and root certificate; the dashboard shows the ' +
      'credential',
    async () => {
      const { certificateChain, privateKey, id } = await generateCertificate(emulator, { commonName: 'meter-002' });
      const device = await simulateDevice({
        emulator,
        appVersion: 'smart-meter-v1',
        token: 'meter-002-token',
        tls: true,
        cert: certificateChain,
        key: privateKey,
        config: false,
        software: false,
      });
      try {
        expect(device.mqttUrl).toBe(emulator.mqttsUrl);
        const connections = (await call('GET', '/_emu/connections')).body as Array<{
          endpointId: string;
          login?: unknown;
        }>;
        expect(connections.find((c) => c.endpointId === 'meter-002')?.login).toEqual({
          tls: true,
          credential: { kind: 'x509', id, name: 'meter-002' },
        });
      } finally {
        await device.stop();
      }
    },
  );

  it('refuses a certificate without its key, and TLS files without tls', async () => {
    await expect(
      simulateDevice({ emulator, appVersion: 'smart-meter-v1', token: 'meter-001-token', tls: true, cert: 'x' }),
    ).rejects.toThrow(SimulatorOptionsError);
    await expect(
      simulateDevice({ emulator, appVersion: 'smart-meter-v1', token: 'meter-001-token', ca: 'x' }),
    ).rejects.toThrow(/tls: true/);
  });

  it(
    'platform-emu tls client-cert writes client.crt, client.key (0600) and ca.pem that device simulate --tls ' + 'uses',
    async () => {
      const out = await mkdtemp(join(tmpdir(), 'client-cert-'));
      const made = await execa('node', [
        BIN,
        'tls',
        'client-cert',
        '--url',
        emulator.url,
        '--cn',
        'meter-003',
        '--ttl',
        'P30D',
        '--out',
        out,
      ]);
      const id = made.stdout.trim();
      expect((await call('GET', `/ccm/api/v1/x509-credentials/${id}`)).body).toMatchObject({
        commonName: 'meter-003',
        state: 'Inactive',
      });
      expect((await stat(join(out, 'client.key'))).mode & 0o777).toBe(0o600);
      expect(await readFile(join(out, 'ca.pem'), 'utf8')).toBe(emulator.caCertificate);
      const ca = await execa('node', [BIN, 'tls', 'ca', '--url', emulator.url]);
      expect(`${ca.stdout}\n`).toBe(emulator.caCertificate);
      const badTtl = await execa(
        'node',
        [BIN, 'tls', 'client-cert', '--url', emulator.url, '--ttl', 'P9999D', '--out', out],
        { reject: false },
      );
      expect(badTtl.exitCode).toBe(2);
      expect(badTtl.stderr).toMatch(/PT1M to P3650D/);

      const simulation = execa(
        'node',
        [
          BIN,
          ...simulateArgs('smart-meter-v1', 'meter-003-token', '--url', emulator.url, '--tls', '--json'),
          '--cert',
          join(out, 'client.crt'),
          '--key',
          join(out, 'client.key'),
        ],
        { reject: false },
      );
      await new Promise<void>((resolve) =>
        simulation.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('"connected"') && resolve()),
      );
      simulation.kill('SIGINT');
      await simulation;
      expect((await call('GET', `/ccm/api/v1/x509-credentials/${id}`)).body.state).toBe('Active');
    },
  );
});

describe('ports', () => {
  it(
    'start --port 0 gets a free MQTTS port and says so in --json; a taken MQTTS port fails the start with the ' +
      'port flag',
    async () => {
      const emulator = await startTestEmulator();
      const started = execa('node', [BIN, 'start', '--port', '0', '--mqtt-port', '0', '--in-memory', '--json'], {
        reject: false,
      });
      const line = await new Promise<string>((resolve) =>
        started.stdout!.on('data', (chunk: Buffer) => resolve(chunk.toString())),
      );
      const info = JSON.parse(line);
      expect(info).toMatchObject({ mqttsUrl: expect.stringMatching(/^mqtts:\/\//), mqttsPort: expect.any(Number) });
      expect(info.mqttsPort).not.toBe(8883);
      started.kill('SIGTERM');
      await started;
      const taken = await execa(
        'node',
        [BIN, 'start', '--port', '0', '--mqtt-port', '0', '--mqtts-port', String(emulator.mqttsPort), '--in-memory'],
        { reject: false },
      );
      expect(taken.exitCode).not.toBe(0);
      expect(taken.stderr).toContain(`The MQTTS port ${emulator.mqttsPort} is in use`);
      expect(taken.stderr).toContain('--mqtts-port');
    },
  );

  it(
    'exec gives the command PLATFORM_EMU_MQTTS_URL and PLATFORM_EMU_CA, a file holding the root ' + 'certificate',
    async () => {
      const result = await execa('node', [
        BIN,
        'exec',
        '--quiet',
        '--',
        'sh',
        '-c',
        'echo "$PLATFORM_EMU_MQTTS_URL"; cat "$PLATFORM_EMU_CA"',
      ]);
      const [url, ...pem] = result.stdout.split('\n');
      expect(url).toMatch(/^mqtts:\/\/127\.0\.0\.1:\d+$/);
      expect(pem.join('\n')).toContain('-----BEGIN CERTIFICATE-----');
    },
  );
});
