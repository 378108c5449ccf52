import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { cli, simulateArgs, simulator } from '../helpers/device-cli.js';

describe('platform-emu device', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];
  const rest = api(emulator);

  it('simulate --upload uploads the file as a blob of the endpoint: listed, and downloaded byte for byte', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'device-upload-')), 'photo.jpg');
    const bytes = randomBytes(70_000);
    await writeFile(file, bytes);
    const sim = simulator(
      '--app-version',
      'tracker-v1',
      '--token',
      'tracker-002-token',
      '--upload',
      file,
      '--no-config',
      '--no-software',
      ...url,
    );
    const uploaded = await sim.next('uploaded');
    expect(uploaded).toMatchObject({
      token: 'tracker-002-token',
      blobId: expect.any(String),
      name: 'photo.jpg',
      size: 70_000,
      url: expect.any(String),
    });
    const listed = await rest('GET', '/bcx/api/v1/applications/tracker/binary-data/list?endpointId=tracker-002');
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: uploaded.blobId,
        endpointId: 'tracker-002',
        name: 'photo.jpg',
        size: 70_000,
        url: uploaded.url,
      }),
    ]);
    const download = await fetch(uploaded.url);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await sim.interrupt()).exitCode).toBe(0);

    const missing = await cli(
      ...simulateArgs('tracker-v1', 'tracker-002-token', '--upload', `${file}.missing`, ...url),
    );
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(
      `platform-emu: Cannot read the file to upload, ${file}.missing: ENOENT: no such file or directory, open ` +
        `'${file}.missing'`,
    );
  });
});
