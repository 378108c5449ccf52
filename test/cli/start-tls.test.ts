import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, startProcess, type EmulatorProcess } from '../store/emulator-process.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-start-tls-'));
const running: EmulatorProcess[] = [];

beforeAll(assertBuilt);
afterAll(async () => {
  await Promise.all(running.map((e) => e.stop('SIGKILL')));
  rmSync(root, { recursive: true, force: true });
});

/** `start --json` on the directory: the process and its ready line. */
async function start(dir: string) {
  const emulator = await startProcess(['--port', '0', '--mqtts-port', '0', '--json', '--data', dir]);
  running.push(emulator);
  const info = JSON.parse(emulator.stdout().split('\n')[0]) as { url: string; mqttsUrl: string };
  return { emulator, info };
}

const servedCa = async (url: string) => (await fetch(`${url}/_emu/tls/ca.pem`)).text();

describe('start on a new data directory', () => {
  it('makes its certificate authority at the first start and keeps it; MQTTS shows a certificate of it', async () => {
    const dir = join(root, 'data');
    const first = await start(dir);
    // Made once the emulator is ready (or when first asked for, as here), saved by the time it has stopped.
    const ca = await servedCa(first.info.url);
    expect(new X509Certificate(ca).ca).toBe(true);

    // The server certificate, made with the first MQTTS connection, chains to that authority and names 127.0.0.1.
    const client = await mqtt.connectAsync(first.info.mqttsUrl, { ca, reconnectPeriod: 0, connectTimeout: 10_000 });
    expect(client.connected).toBe(true);
    await client.endAsync();
    expect(await first.emulator.stop('SIGTERM')).toMatchObject({ exitCode: 0 });
    const stored = JSON.parse(readFileSync(join(dir, 'tls-ca.json'), 'utf8')) as { certificate: string };
    expect(stored.certificate).toBe(ca);

    const second = await start(dir);
    expect(await servedCa(second.info.url)).toBe(stored.certificate);
    expect(await second.emulator.stop('SIGTERM')).toMatchObject({ exitCode: 0 });
  });
});
