import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import { startEmulator, type RunningEmulator } from '../../src/index.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { TestDevice } from '../gateway/device.js';
import {
  EmulatorClient,
  EmulatorHttpError,
  Kp1Device,
  requestUploadToken,
  uploadBlobFile,
} from '../../src/client/index.js';

const BCX = '/bcx/api/v1';
const SM = `${BCX}/applications/smart-meter`;

const root = mkdtempSync(join(tmpdir(), 'platform-emu-bcx-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

/** An upload token the way a device gets one: KP1 `bcx/token` over HTTP. */
async function uploadToken(
  emulator: RunningEmulator,
  endpointToken = 'meter-001-token',
  version = 'smart-meter-v1',
): Promise<string> {
  const reply = await api(emulator)('POST', `/kp1/${version}/bcx/${endpointToken}/token`);
  if (reply.status !== 200) throw new Error(`token: ${reply.status} ${reply.text}`);
  return reply.body.token;
}

function upload(emulator: RunningEmulator, path: string, body: Buffer | string, token?: string) {
  return api(emulator)('POST', `${BCX}${path}`, {
    rawBody: body,
    headers: { 'content-type': 'application/octet-stream', ...(token ? { 'x-auth-token': token } : {}) },
  });
}

/** A POST whose path goes out exactly as written (fetch would resolve `..` and `%2E%2E` segments first). */
function rawPost(
  emulator: RunningEmulator,
  path: string,
  body: string,
  token: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${emulator.url}/`,
      { method: 'POST', path, headers: { 'x-auth-token': token, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function download(emulator: RunningEmulator, path: string) {
  const response = await fetch(`${emulator.url}${path}`);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Moves the emulator's clock (the interface the virtual clock will drive) ahead by `ms`. */
function advanceClock(emulator: RunningEmulator, ms: number): void {
  const ctx = internalContext(emulator);
  const base = ctx.clock;
  ctx.clock = {
    now: () => new Date(base.now().getTime() + ms),
    nowIso: () => new Date(base.now().getTime() + ms).toISOString(),
  };
}

async function until(holds: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('binary data collection', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('is listed by the application manager, as is the time series service', async () => {
    const instances = (await call('GET', '/app-manager/api/v1/service-instances')).body;
    expect(instances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'bcx', urlPrefix: '/bcx', serviceGroup: 'device' }),
        expect.objectContaining({ name: 'epts', urlPrefix: '/epts', serviceGroup: 'device' }),
      ]),
    );
  });

  describe('the upload token (KP1 bcx/token)', () => {
    it('is handed out over MQTT too, and takes no request fields', async () => {
      const device = await TestDevice.connect(emulator);
      const reply = await device.request('kp1/smart-meter-v1/bcx/meter-002-token/token');
      expect(reply.ok).toBe(true);
      expect(reply.payload).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) });
      const refused = await device.request('kp1/smart-meter-v1/bcx/meter-002-token/token', { scope: 'all' });
      expect(refused.payload).toMatchObject({
        statusCode: 400,
        reasonPhrase: expect.stringContaining('unknown field scope'),
      });
    });

    it.each([
      ['no X-Auth-Token', undefined, /needs the header X-Auth-Token/],
      ['an unknown token', 'not-a-token', /not an upload token/],
    ])('refuses an upload with %s: 403', async (_what, token, message) => {
      for (const path of ['/binary-data', '/files/a.txt']) {
        const response = await upload(emulator, path, 'x', token);
        expect(response.status).toBe(403);
        expect(response.body.message).toMatch(message);
      }
    });

    it('expires after an hour by default (ctx.clock)', async () => {
      const own = await startTestEmulator();
      const token = await uploadToken(own);
      advanceClock(own, 3599_000);
      expect((await upload(own, '/binary-data', 'still valid', token)).status).toBe(201);
      advanceClock(own, 1000);
      const expired = await upload(own, '/files/late.txt', 'too late', token);
      expect(expired.status).toBe(403);
      expect(expired.body.message).toMatch(/expired at .*get a new one with kp1/);
      expect((await upload(own, '/files/late.txt', 'fresh', await uploadToken(own))).status).toBe(204);
    });

    it('lives as long as uploadTokenTtl says (--upload-token-ttl)', async () => {
      const own = await startTestEmulator({ uploadTokenTtl: 60 });
      const token = await uploadToken(own);
      advanceClock(own, 59_000);
      expect((await upload(own, '/binary-data', 'x', token)).status).toBe(201);
      advanceClock(own, 1000);
      expect((await upload(own, '/binary-data', 'x', token)).status).toBe(403);
    });
  });

  describe('blobs', async () => {
    const own = await startTestEmulator();
    const call = api(own);
    const meter1 = await uploadToken(own, 'meter-001-token');
    const meter2 = await uploadToken(own, 'meter-002-token');
    const payload = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
    const first = await upload(own, '/binary-data?name=Photo-A', payload, meter1);
    const second = await upload(own, '/binary-data?name=log', 'second', meter1);
    const other = await upload(own, '/binary-data?name=photo-b', '', meter2);

    it('answers 201 with Location and the descriptor; the upload is bound to the token’s endpoint', async () => {
      expect(first.status, first.text).toBe(201);
      const id = first.body.id;
      expect(first.headers.get('location')).toBe(`${own.url}${SM}/endpoints/meter-001/binary-data/${id}`);
      expect(first.body).toEqual({
        id,
        name: 'Photo-A',
        url: `${own.url}${SM}/endpoints/meter-001/binary-data/${id}/data`,
        size: 3000,
        createdDate: expect.any(String),
      });
      expect(other.body.size).toBe(0);
      const listed = (await call('GET', `${SM}/binary-data/list`)).body;
      expect(listed.map((b: { endpointId: string; name: string }) => `${b.endpointId}:${b.name}`)).toEqual([
        'meter-001:Photo-A',
        'meter-001:log',
        'meter-002:photo-b',
      ]);
    });

    it('downloads a payload as an octet-stream attachment named <id>.bin', async () => {
      const got = await download(own, `${SM}/endpoints/meter-001/binary-data/${first.body.id}/data`);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('application/octet-stream');
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${first.body.id}.bin"`);
      expect(got.headers.get('content-length')).toBe('3000');
      expect(got.bytes.equals(payload)).toBe(true);
      const empty = await download(own, `${SM}/endpoints/meter-002/binary-data/${other.body.id}/data`);
      expect([empty.status, empty.bytes.length]).toEqual([200, 0]);
    });

    it('data/last is the endpoint’s newest payload', async () => {
      const got = await download(own, `${SM}/endpoints/meter-001/binary-data/data/last`);
      expect(got.bytes.toString()).toBe('second');
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${second.body.id}.bin"`);
      expect((await call('GET', `${SM}/endpoints/meter-003/binary-data/data/last`)).status).toBe(404);
    });

    it('GET .../binary-data groups by endpoint, fromDate and toDate required', async () => {
      const range = 'fromDate=2000-01-01T00:00:00Z&toDate=2100-01-01T00:00:00Z';
      const grouped = await call('GET', `${SM}/binary-data?${range}`);
      expect(grouped.body.map((group: object) => Object.keys(group))).toEqual([['meter-001'], ['meter-002']]);
      expect(grouped.body[0]['meter-001'].map((b: { name: string }) => b.name)).toEqual(['Photo-A', 'log']);
      const descending = await call('GET', `${SM}/binary-data?${range}&sort=DESC&endpointId=meter-001`);
      expect(descending.body).toEqual([
        { 'meter-001': [expect.objectContaining({ name: 'log' }), expect.objectContaining({ name: 'Photo-A' })] },
      ]);
      expect(
        (await call('GET', `${SM}/binary-data?${range}&endpointId=meter-002,meter-009`)).body.map(
          (g: object) => Object.keys(g)[0],
        ),
      ).toEqual(['meter-002']);
      const past = await call('GET', `${SM}/binary-data?fromDate=2000-01-01T00:00:00Z&toDate=2000-01-02T00:00:00Z`);
      expect(past.body).toEqual([]);
      for (const query of ['fromDate=2000-01-01T00:00:00Z', 'toDate=2100-01-01T00:00:00Z', '']) {
        const missing = await call('GET', `${SM}/binary-data?${query}`);
        expect(missing.status).toBe(400);
        expect(missing.body.message).toMatch(/(fromDate|toDate) is required/);
      }
    });

    it(
      'GET .../binary-data/list filters by endpointId, part of the name (any case), dates; pages and ' + 'sorts',
      async () => {
        const names = async (query: string) =>
          (await call('GET', `${SM}/binary-data/list?${query}`)).body.map((b: { name: string }) => b.name);
        expect(await names('name=PHOTO')).toEqual(['Photo-A', 'photo-b']);
        expect(await names('endpointId=meter-002')).toEqual(['photo-b']);
        expect(await names('sort=DESC&limit=2')).toEqual(['photo-b', 'log']);
        expect(await names('offset=1&limit=1')).toEqual(['log']);
        expect(await names(`fromDate=${encodeURIComponent(second.body.createdDate)}`)).toEqual(
          expect.arrayContaining(['log', 'photo-b']),
        );
        expect(await names('toDate=2000-01-01T00:00:00Z')).toEqual([]);
        for (const query of [
          'sort=up',
          'limit=-1',
          'fromDate=soon',
          'fromDate=2024-02-01T00:00:00Z&toDate=2024-01-01T00:00:00Z',
        ]) {
          expect((await call('GET', `${SM}/binary-data/list?${query}`)).status, query).toBe(400);
        }
      },
    );

    it('deletes a blob (204), after which it is 404; another endpoint’s blob is 404 on this endpoint', async () => {
      const doomed = await upload(own, '/binary-data?name=doomed', 'bye', meter1);
      expect((await call('DELETE', `${SM}/endpoints/meter-002/binary-data/${doomed.body.id}`)).status).toBe(404);
      expect((await call('DELETE', `${SM}/endpoints/meter-001/binary-data/${doomed.body.id}`)).status).toBe(204);
      expect((await call('DELETE', `${SM}/endpoints/meter-001/binary-data/${doomed.body.id}`)).status).toBe(404);
      expect((await call('GET', `${SM}/endpoints/meter-001/binary-data/${doomed.body.id}/data`)).status).toBe(404);
    });

    it.each([
      [`${BCX}/applications/nope/binary-data/list`, /no application nope/],
      [`${BCX}/applications/thermostat/files`, /no application thermostat/],
      [`${SM}/endpoints/tracker-001/binary-data/data/last`, /no endpoint tracker-001 in application smart-meter/],
      [`${SM}/endpoints/meter-001/binary-data/999/data`, /no binary data 999/],
    ])('GET %s is 404', async (path, message) => {
      const response = await call('GET', path);
      expect(response.status).toBe(404);
      expect(response.body.message).toMatch(message);
    });
  });

  describe('files', async () => {
    const own = await startTestEmulator();
    const call = api(own);
    const meter1 = await uploadToken(own, 'meter-001-token');
    const meter3 = await uploadToken(own, 'meter-003-token');

    it('uploads (204) and overwrites (204, createdDate kept); the url downloads it', async () => {
      expect((await upload(own, '/files/report.csv', 'a,b\n1,2\n', meter1)).status).toBe(204);
      const before = (await call('GET', `${SM}/files?name=report`)).body.content[0];
      const overwritten = await upload(own, '/files/report.csv', 'a,b\n3,4\n5,6\n', meter1);
      expect(overwritten.status).toBe(204);
      expect(overwritten.text).toBe('');
      const listed = await call('GET', `${SM}/files?name=report`);
      expect(listed.body).toEqual({
        content: [
          {
            name: 'report.csv',
            endpointId: 'meter-001',
            url: `${own.url}${SM}/endpoints/meter-001/files/report.csv/data`,
            size: 12,
            createdDate: before.createdDate,
            updatedDate: expect.any(String),
          },
        ],
        totalElements: 1,
      });
      const got = await download(own, listed.body.content[0].url.slice(own.url.length));
      expect(got.bytes.toString()).toBe('a,b\n3,4\n5,6\n');
      expect(got.headers.get('content-disposition')).toBe('attachment; filename="report.csv.bin"');
    });

    it('keeps files per endpoint, and lists with every parameter (limit 20 by default)', async () => {
      for (let i = 0; i < 22; i++)
        expect((await upload(own, `/files/cam-${String(i).padStart(2, '0')}.jpg`, `img ${i}`, meter3)).status).toBe(
          204,
        );
      await upload(own, '/files/report.csv', 'meter 3 report', meter3);
      const list = async (query: string) => (await call('GET', `${SM}/files?${query}`)).body;
      const all = await list('endpointId=meter-003');
      expect(all.totalElements).toBe(23);
      expect(all.content).toHaveLength(20);
      expect((await list('endpointId=meter-003&limit=0')).content).toHaveLength(23);
      expect((await list('name=CAM-2&endpointId=meter-003')).content.map((f: { name: string }) => f.name)).toEqual([
        'cam-20.jpg',
        'cam-21.jpg',
      ]);
      expect(
        (await list('name=report&endpointId=meter-001,meter-003')).content.map(
          (f: { endpointId: string }) => f.endpointId,
        ),
      ).toEqual(['meter-001', 'meter-003']);
      expect((await list('endpointId=meter-003&sort=DESC&limit=1')).content[0].name).toBe('report.csv');
      expect((await list('endpointId=meter-003&offset=22')).content.map((f: { name: string }) => f.name)).toEqual([
        'report.csv',
      ]);
      expect((await list('toDate=2000-01-01T00:00:00Z')).totalElements).toBe(0);
      expect((await call('GET', `${SM}/files?fromDate=yesterday`)).status).toBe(400);
    });

    // The path segments as sent (percent-encoded), so that no client normalizes them away first.
    it.each([
      ['..', '..'],
      ['.. (encoded)', '%2E%2E'],
      ['../secret', '..%2Fsecret'],
      ['a/b', 'a%2Fb'],
      ['a\\b', 'a%5Cb'],
      ['..\\..\\x', '..%5C..%5Cx'],
      ['with NUL', 'a%00b'],
      ['x..y', 'x..y'],
      ['of 256 bytes', encodeURIComponent('é'.repeat(128))],
    ])('refuses the file name %s with 400 and keeps nothing', async (_what, segment) => {
      const response = await rawPost(own, `${BCX}/files/${segment}`, 'evil', meter1);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.message).toMatch(/Invalid file name/);
    });

    it('takes a name of 255 bytes and names with other characters as they are', async () => {
      for (const name of ['é'.repeat(127) + 'a', 'with space & "quote".txt', '.hidden']) {
        const response = await upload(own, `/files/${encodeURIComponent(name)}`, 'ok', meter1);
        expect(response.status, `${name}: ${response.text}`).toBe(204);
      }
      const names = (await call('GET', `${SM}/files?endpointId=meter-001&limit=0`)).body.content.map(
        (f: { name: string }) => f.name,
      );
      expect(names).toEqual(expect.arrayContaining(['é'.repeat(127) + 'a', 'with space & "quote".txt', '.hidden']));
      expect(names.some((n: string) => n.includes('evil') || n.includes('..'))).toBe(false);
      const quoted = await download(
        own,
        `${SM}/endpoints/meter-001/files/${encodeURIComponent('with space & "quote".txt')}/data`,
      );
      expect(quoted.headers.get('content-disposition')).toMatch(
        /^attachment; filename="with space & \\"quote\\".txt.bin"/,
      );
    });
  });

  describe('the client (what the simulator uploads with)', () => {
    it('gets a token over MQTT and streams a file from disk as a blob', async () => {
      const device = await Kp1Device.connect({
        mqttUrl: emulator.mqttUrl,
        appVersion: 'smart-meter-v1',
        token: 'meter-003-token',
      });
      try {
        const token = await requestUploadToken(device);
        const path = join(root, 'firmware-dump.bin');
        writeFileSync(path, Buffer.alloc(70_000, 7));
        const client = new EmulatorClient(emulator.url);
        const blob = await uploadBlobFile(client, token, path);
        expect(blob).toMatchObject({
          name: 'firmware-dump.bin',
          size: 70_000,
          location: expect.stringContaining('/endpoints/meter-003/binary-data/'),
        });
        expect(
          (await download(emulator, blob.url.slice(emulator.url.length))).bytes.equals(Buffer.alloc(70_000, 7)),
        ).toBe(true);
        await expect(uploadBlobFile(client, 'wrong', path)).rejects.toThrow(EmulatorHttpError);
      } finally {
        await device.close();
      }
    });
  });

  describe('with auth on', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const call = api(secured);

    it('uploads need only the upload token; reads need a bearer token of the owning tenant', async () => {
      expect((await upload(secured, '/binary-data?name=x', 'x', await uploadToken(secured))).status).toBe(201);
      const acme = await tokenFor(secured, { scopes: ['endpoint:read'] });
      const globex = await tokenFor(secured, { tenant: 'globex', scopes: ['endpoint:read'] });
      expect((await call('GET', `${SM}/binary-data/list`, { token: acme })).body).toHaveLength(1);
      expect((await call('GET', `${SM}/binary-data/list`, { token: globex })).status).toBe(404);
      expect((await call('GET', `${SM}/binary-data/list`)).status).toBe(401);
    });
  });
});

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
