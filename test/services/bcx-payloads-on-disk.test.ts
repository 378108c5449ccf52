import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import { startEmulator } from '../../src/index.js';
import { BCX, download, SM, upload, uploadToken } from '../helpers/bcx.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { tempRoot } from '../helpers/temp-root.js';

const { freshDir } = tempRoot('platform-emu-bcx-');

async function until(holds: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('binary payloads on disk', () => {
  it('an upload over --upload-limit answers 413 and keeps nothing, declared or streamed', async () => {
    const dir = freshDir();
    const emulator = await startTestEmulator({ inMemory: false, dataDir: dir, uploadLimit: 1000 });
    const token = await uploadToken(emulator);
    const declared = await upload(emulator, '/binary-data', Buffer.alloc(1001), token);
    expect(declared.status).toBe(413);
    expect(declared.body.message).toMatch(/limit of 1000 bytes \(flag --upload-limit\)/);
    const chunks = (async function* () {
      for (let i = 0; i < 5; i++) yield new Uint8Array(400);
    })();
    const streamed = await fetch(`${emulator.url}${BCX}/files/big.bin`, {
      method: 'POST',
      headers: { 'x-auth-token': token },
      body: chunks as never,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { message: string }).message).toMatch(/nothing was kept/);
    expect((await upload(emulator, '/binary-data', Buffer.alloc(1000), token)).status).toBe(201);
    expect((await api(emulator)('GET', `${SM}/files`)).body.totalElements).toBe(0);
    expect(readdirSync(join(dir, 'blobs'))).toHaveLength(1);
  });

  it('an interrupted upload leaves no file, listed or not', async () => {
    const dir = freshDir();
    const emulator = await startTestEmulator({ inMemory: false, dataDir: dir });
    const token = await uploadToken(emulator);
    const req = request(`${emulator.url}${BCX}/binary-data?name=cut`, {
      method: 'POST',
      headers: { 'x-auth-token': token, 'content-length': String(10 * 1024 * 1024) },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(1024 * 1024));
    const blobs = join(dir, 'blobs');
    await until(() => existsSync(blobs) && readdirSync(blobs).some((f) => f.endsWith('.part')), 'the partial upload');
    req.destroy();
    await until(() => readdirSync(blobs).length === 0, 'the partial upload to be removed');
    expect((await api(emulator)('GET', `${SM}/binary-data/list`)).body).toEqual([]);
  });

  it.skipIf(!existsSync('/proc/self/fd'))(
    'a download the client leaves half way closes the payload file; the payload is whole afterwards',
    async () => {
      const dir = freshDir();
      const emulator = await startTestEmulator({ inMemory: false, dataDir: dir });
      const token = await uploadToken(emulator);
      const payload = randomBytes(16 * 1024 * 1024);
      const blob = (await upload(emulator, '/binary-data?name=big', payload, token)).body;
      const blobs = join(dir, 'blobs');
      const openPayloads = () =>
        readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith(blobs);
          } catch {
            return false; // closed meanwhile
          }
        }).length;

      // The first bytes arrive while most of the 16 MB is still to be sent: then the client goes away.
      await new Promise<void>((resolve, reject) => {
        const req = request(`${emulator.url}${SM}/endpoints/meter-001/binary-data/${blob.id}/data`, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
        req.end();
      });
      await until(() => openPayloads() === 0, 'the payload file to be closed');

      const whole = await download(emulator, `${SM}/endpoints/meter-001/binary-data/${blob.id}/data`);
      expect(whole.status).toBe(200);
      expect(whole.bytes.equals(payload)).toBe(true);
      await until(() => openPayloads() === 0, 'the payload file to be closed after a whole download');
    },
  );

  it('downloads of payloads of other sizes, one after another and at once, each get their own bytes', async () => {
    // A download's 1 MiB blocks serve the next download once it is over (src/store/blob-files.ts).
    const emulator = await startTestEmulator({ inMemory: false, dataDir: freshDir() });
    const token = await uploadToken(emulator);
    const payloads = [randomBytes(2.5 * 1024 * 1024), randomBytes(1024 * 1024 + 3), randomBytes(10)];
    const ids: string[] = [];
    for (const payload of payloads) ids.push((await upload(emulator, '/binary-data', payload, token)).body.id);
    const data = (i: number) => download(emulator, `${SM}/endpoints/meter-001/binary-data/${ids[i]}/data`);
    for (const i of [0, 1, 2, 0, 2, 1]) expect((await data(i)).bytes.equals(payloads[i])).toBe(true);
    const atOnce = await Promise.all([0, 1, 2, 0].map(data));
    atOnce.forEach((d, n) => expect(d.bytes.equals(payloads[[0, 1, 2, 0][n]])).toBe(true));
  });

  it('an upload of several writeback intervals is stored whole; over the limit, nothing of it is kept', async () => {
    // The payload is fdatasynced every 16 MiB while it arrives, and fsynced before the answer.
    const dir = freshDir();
    const emulator = await startTestEmulator({ inMemory: false, dataDir: dir, uploadLimit: 40 * 1024 * 1024 });
    const token = await uploadToken(emulator);
    const payload = randomBytes(36 * 1024 * 1024);
    const blob = await upload(emulator, '/binary-data?name=big', payload, token);
    expect(blob.status).toBe(201);
    expect(blob.body.size).toBe(payload.length);
    const back = await download(emulator, `${SM}/endpoints/meter-001/binary-data/${blob.body.id}/data`);
    expect(back.bytes.equals(payload)).toBe(true);
    const chunk = new Uint8Array(1024 * 1024);
    const tooLarge = await fetch(`${emulator.url}${BCX}/binary-data?name=over`, {
      method: 'POST',
      headers: { 'x-auth-token': token },
      body: (async function* () {
        for (let i = 0; i < 41; i++) yield chunk;
      })() as never,
      duplex: 'half',
    } as RequestInit);
    expect(tooLarge.status).toBe(413);
    // The stored blob's file only: no partial upload left.
    expect(readdirSync(join(dir, 'blobs'))).toHaveLength(1);
    expect((await api(emulator)('GET', `${SM}/binary-data/list`)).body).toHaveLength(1);
  });

  it('keeps payloads across a restart, and drops files no record names (at start and on reset)', async () => {
    const dir = freshDir();
    const options = { port: 0, mqttPort: 0, dataDir: dir, log: () => undefined };
    const first = await startEmulator(options);
    const blob = await upload(first, '/binary-data', 'kept', await uploadToken(first));
    await first.stop();
    writeFileSync(join(dir, 'blobs', 'stray.bin'), 'nobody lists me');
    writeFileSync(join(dir, 'blobs', 'x.bin.part'), 'half an upload');
    const second = await startEmulator(options);
    try {
      expect(
        (await download(second, `${SM}/endpoints/meter-001/binary-data/${blob.body.id}/data`)).bytes.toString(),
      ).toBe('kept');
      expect(readdirSync(join(dir, 'blobs'))).toHaveLength(1);
      // A reset drops the records, and with them the files.
      await second.reset();
      expect(readdirSync(join(dir, 'blobs'))).toHaveLength(0);
    } finally {
      await second.stop();
    }
  });

  it('in memory, keeps payloads in a temporary directory removed on stop', async () => {
    const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
    const blob = await upload(emulator, '/binary-data', 'temporary', await uploadToken(emulator));
    const file = internalContext(emulator).store.get<{ file: string }>('binary-data', blob.body.id)!.file;
    const holder = readdirSync(tmpdir())
      .filter((d) => d.startsWith('platform-emu-blobs-'))
      .map((d) => join(tmpdir(), d))
      .find((d) => existsSync(join(d, file)));
    expect(holder).toBeDefined();
    await emulator.stop();
    expect(existsSync(holder!)).toBe(false);
  });
});
