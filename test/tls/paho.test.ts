import { execa, execaSync } from 'execa';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { generateCertificate, setCertificateState } from './helpers.js';

const CLIENT = fileURLToPath(new URL('./paho-client.py', import.meta.url));

function pahoAvailable(): boolean {
  try {
    return execaSync('python3', ['-c', 'import paho.mqtt.client'], { reject: false }).exitCode === 0;
  } catch {
    return false;
  }
}

const available = pahoAvailable();
if (!available)
  console.warn('test/tls/paho.test.ts skipped: python3 with paho-mqtt is not installed (pip install paho-mqtt).');

describe.skipIf(!available)("the platform's tutorial flow with a python paho client over TLS", async () => {
  const emulator = await startTestEmulator({ tlsClientAuth: 'required' });
  const call = api(emulator);
  const dir = await mkdtemp(join(tmpdir(), 'paho-'));
  const ca = join(dir, 'ca.pem');
  await writeFile(ca, emulator.caCertificate);
  const port = String(emulator.mqttsPort);

  it(
    'two-way: connects with tls_set(ca_certs, certfile, keyfile), its samples reach the time series, and it is ' +
      'dropped when suspended',
    async () => {
      const generated = await generateCertificate(emulator, { commonName: 'meter-003' });
      await writeFile(join(dir, 'client.crt'), generated.certificateChain);
      await writeFile(join(dir, 'client.key'), generated.privateKey, { mode: 0o600 });
      const sample = JSON.stringify({ timestamp: Date.now(), temperature: 21.375 });
      const topic = 'kp1/smart-meter-v1/dcx/meter-003-token/json';
      const paho = execa(
        'python3',
        [CLIENT, '127.0.0.1', port, ca, join(dir, 'client.crt'), join(dir, 'client.key'), topic, sample],
        {
          env: { PAHO_WAIT_FOR_DISCONNECT: '1' },
          reject: false,
        },
      );
      const lines: string[] = [];
      const replied = new Promise<void>((resolve) => {
        paho.stdout!.on('data', (chunk: Buffer) => {
          lines.push(...chunk.toString().trim().split('\n'));
          if (lines.some((line) => line.startsWith('reply'))) resolve();
        });
      });
      await replied;
      expect(lines.slice(0, 2)).toEqual(['connected', 'reply status']);
      // The series is `temperature`, or `auto~temperature` where the application extracts series automatically.
      const last = async (series: string) =>
        call(
          'GET',
          `/epts/api/v1/applications/smart-meter/time-series/last?endpointId=meter-003&timeSeriesName=${series}`,
        );
      const named = await last('temperature');
      expect((named.status === 200 ? named : await last('auto~temperature')).text).toContain('21.375');
      expect((await setCertificateState(emulator, generated.id, 'Suspended')).status).toBe(204);
      const result = await paho;
      expect(result.stdout.trim().split('\n').at(-1)).toBe('disconnected');
      const refused = await execa('python3', [
        CLIENT,
        '127.0.0.1',
        port,
        ca,
        join(dir, 'client.crt'),
        join(dir, 'client.key'),
        topic,
        sample,
      ]);
      expect(refused.stdout.trim()).toMatch(/^refused 5|^refused .*[Nn]ot authori[sz]ed|^disconnected$/m);
      expect(refused.stdout).not.toContain('reply');
    },
  );

  it('without a certificate the tenant requires one: refused', async () => {
    const result = await execa('python3', [
      CLIENT,
      '127.0.0.1',
      port,
      ca,
      '-',
      '-',
      'kp1/smart-meter-v1/tsx/meter-001-token',
      '{}',
    ]);
    expect(result.stdout).not.toContain('reply');
    expect(result.stdout).toMatch(/refused/);
  });
});

describe.skipIf(!available)('a python paho client over one-way TLS', async () => {
  const emulator = await startTestEmulator();
  const dir = await mkdtemp(join(tmpdir(), 'paho-'));
  const ca = join(dir, 'ca.pem');
  await writeFile(ca, emulator.caCertificate);

  it('tls_set(ca_certs="ca.pem") alone: its data samples are answered and reach the time series', async () => {
    const sample = JSON.stringify({ timestamp: Date.now(), temperature: 19.625 });
    const topic = 'kp1/smart-meter-v1/dcx/meter-002-token/json';
    const result = await execa('python3', [
      CLIENT,
      '127.0.0.1',
      String(emulator.mqttsPort),
      ca,
      '-',
      '-',
      topic,
      sample,
    ]);
    expect(result.stdout.split('\n').slice(0, 2)).toEqual(['connected', 'reply status']);
    const last = async (series: string) =>
      api(emulator)(
        'GET',
        `/epts/api/v1/applications/smart-meter/time-series/last?endpointId=meter-002&timeSeriesName=${series}`,
      );
    const named = await last('temperature');
    expect((named.status === 200 ? named : await last('auto~temperature')).text).toContain('19.625');
  });
});
