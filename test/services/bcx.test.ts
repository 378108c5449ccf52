import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import type { RunningEmulator } from '../../src/index.js';
import { download, SM, upload, uploadToken } from '../helpers/bcx.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { tempRoot } from '../helpers/temp-root.js';
import { TestDevice } from '../gateway/device.js';
import {
  EmulatorClient,
  EmulatorHttpError,
  Kp1Device,
  requestUploadToken,
  uploadBlobFile,
} from '../../src/client/index.js';

const { root } = tempRoot('platform-emu-bcx-');

/** Moves the emulator's clock (the interface the virtual clock will drive) ahead by `ms`. */
function advanceClock(emulator: RunningEmulator, ms: number): void {
  const ctx = internalContext(emulator);
  const base = ctx.clock;
  ctx.clock = {
    now: () => new Date(base.nowMs() + ms),
    nowMs: () => base.nowMs() + ms,
    nowIso: () => new Date(base.nowMs() + ms).toISOString(),
  };
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
