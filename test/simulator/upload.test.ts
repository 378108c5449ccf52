import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { simulateDevice, SimulatorOptionsError, type SimulatedDevice } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const running: SimulatedDevice[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((device) => device.stop()));
});

async function fileOf(bytes: Buffer, name = 'reading.bin'): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'upload-test-')), name);
  await writeFile(file, bytes);
  return file;
}

describe('simulateDevice({ upload })', async () => {
  const emulator = await startTestEmulator({ uploadLimit: 1024 });
  const rest = api(emulator);
  const quiet = { config: false, software: false } as const;

  it('uploads the file as a blob of its endpoint once started, and reports its id, size and URL', async () => {
    const bytes = randomBytes(600);
    const file = await fileOf(bytes);
    const device = await simulateDevice({
      emulator,
      appVersion: 'smart-meter-v1',
      token: 'meter-002-token',
      upload: file,
      ...quiet,
    });
    running.push(device);
    // Resolved once the upload is done.
    const uploaded = await device.next('uploaded', undefined, { timeoutMs: 0 });
    expect(uploaded).toEqual({
      event: 'uploaded',
      token: 'meter-002-token',
      blobId: expect.any(String),
      name: 'reading.bin',
      size: 600,
      url: expect.any(String),
    });
    expect(new URL(uploaded.url).pathname).toBe(
      `/bcx/api/v1/applications/smart-meter/endpoints/meter-002/binary-data/${uploaded.blobId}/data`,
    );
    const download = await fetch(uploaded.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('an upload the emulator refuses is an error event; the device keeps running', async () => {
    const device = await simulateDevice({
      emulator,
      appVersion: 'smart-meter-v1',
      token: 'meter-003-token',
      upload: await fileOf(randomBytes(2000)),
      ...quiet,
    });
    running.push(device);
    expect(await device.next('error', undefined, { timeoutMs: 0 })).toMatchObject({
      token: 'meter-003-token',
      statusCode: 413,
      message: expect.stringMatching(/^upload of .*reading\.bin: POST .* answered 413/),
    });
    expect(device.events.some((e) => e.event === 'uploaded')).toBe(false);
    const answered = await rest('POST', '/cex/api/v1/endpoints/meter-003/commands/ping?waitTimeout=20', {
      body: { still: 'here' },
    });
    expect(answered.body).toEqual({ still: 'here' });
  });

  it('a file it cannot read, or no emulator URL to upload to, is an options error before connecting', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'upload-test-'));
    const missing = join(dir, 'missing.bin');
    await expect(
      simulateDevice({ emulator, appVersion: 'smart-meter-v1', token: 'meter-001-token', upload: missing }),
    ).rejects.toThrow(SimulatorOptionsError);
    await expect(
      simulateDevice({ emulator, appVersion: 'smart-meter-v1', token: 'meter-001-token', upload: missing }),
    ).rejects.toThrow(`Cannot read the file to upload, ${missing}: ENOENT`);
    await expect(
      simulateDevice({ emulator, appVersion: 'smart-meter-v1', token: 'meter-001-token', upload: dir }),
    ).rejects.toThrow(/Cannot read the file to upload, .*: (EISDIR|not a regular file)/);
    const file = await fileOf(Buffer.from('x'));
    await expect(
      simulateDevice({
        mqttUrl: emulator.mqttUrl,
        appVersion: 'smart-meter-v1',
        token: 'meter-001-token',
        upload: file,
      }),
    ).rejects.toThrow('Give the emulator (the handle startEmulator returns, or its URL) to upload a file.');
  });
});
