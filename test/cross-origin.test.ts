import { describe, expect, it } from 'vitest';
import { startEmulator } from '../src/index.js';
import { api, startTestEmulator } from './helpers/emulator.js';

const FOREIGN = 'http://evil.example';
const NAMED = 'https://app.example.test:3000';

describe('browsers: CORS for pages on this machine and --allow-origin ones, cross-site writes refused', async () => {
  const emulator = await startTestEmulator({ allowOrigins: [NAMED] });
  const call = api(emulator);
  const plain = (origin: string) => ({
    headers: { origin, 'content-type': 'text/plain' },
    rawBody: '{"endpointId":"planted","appVersion":"smart-meter-v1"}',
  });

  it('answers preflights from loopback origins with the methods and headers web apps send', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8000', 'http://[::1]:3000', 'null', NAMED]) {
      const preflight = await call('OPTIONS', '/epr/api/v1/endpoints/meter-001', {
        headers: {
          origin,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'authorization, content-type, if-match',
        },
      });
      expect(preflight.status, origin).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase().split(', ')).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'if-match', 'if-none-match']),
      );
      expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
      expect(preflight.headers.get('vary')).toContain('Origin');
    }
  });

  it('grants the services, the OIDC endpoints and the KP1 binding, and exposes ETag and Location', async () => {
    const origin = 'http://localhost:5173';
    const one = await call('GET', '/epr/api/v1/endpoints/meter-001', { headers: { origin } });
    expect(one.status).toBe(200);
    expect(one.headers.get('access-control-allow-origin')).toBe(origin);
    expect(one.headers.get('access-control-expose-headers')).toMatch(/ETag.*Location|Location.*ETag/);
    const discovery = await call('GET', '/auth/realms/acme/.well-known/openid-configuration', { headers: { origin } });
    expect(discovery.headers.get('access-control-allow-origin')).toBe(origin);
    const kp1 = await call('OPTIONS', '/kp1/smart-meter-v1/epmx/meter-001-token/update/keys', {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(kp1.status).toBe(204);
    expect(kp1.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('says how API answers may be cached: no-cache with validators', async () => {
    const one = await call('GET', '/epr/api/v1/endpoints/meter-001');
    expect(one.headers.get('etag')).toBeTruthy();
    expect(one.headers.get('cache-control')).toBe('no-cache');
    const list = await call('GET', '/epr/api/v1/endpoints');
    expect(list.headers.get('cache-control')).toBe('no-cache');
  });

  it("refuses a foreign page's text/plain writes on every route with 403, and changes nothing", async () => {
    const before = (await call('GET', '/epr/api/v1/endpoints?size=1000')).body.content.length;
    const writes: Array<[string, string]> = [
      ['POST', '/epr/api/v1/endpoints'],
      ['POST', '/api/v1/endpoints'],
      ['POST', '/cex/api/v1/endpoints/meter-001/commands/reboot'],
      ['POST', '/ccm/api/v1/basic-credentials'],
      ['DELETE', '/epr/api/v1/endpoints/meter-001'],
      ['POST', '/kp1/smart-meter-v1/epmx/meter-001-token/update/keys'],
      ['POST', '/_emu/reset'],
      ['POST', '/auth/realms/acme/protocol/openid-connect/token'],
    ];
    for (const [method, path] of writes) {
      const refused = await call(method, path, plain(FOREIGN));
      expect(refused.status, `${method} ${path}`).toBe(403);
      // The control plane takes writes from its own origin only: its message does not offer --allow-origin.
      expect(refused.body.message).toMatch(path.startsWith('/_emu') ? /its own origin/ : /--allow-origin/);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
    const lookalike = await call('POST', '/epr/api/v1/endpoints', plain('http://localhost.evil.example'));
    expect(lookalike.status).toBe(403);
    expect((await call('GET', '/epr/api/v1/endpoints?size=1000')).body.content.length).toBe(before);
    expect((await call('GET', '/epr/api/v1/endpoints/meter-001')).status).toBe(200);
  });

  it('refuses a foreign preflight and grants nothing to it; reads from it get no CORS grant', async () => {
    const preflight = await call('OPTIONS', '/epr/api/v1/endpoints', {
      headers: { origin: FOREIGN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const read = await call('GET', '/epr/api/v1/endpoints', { headers: { origin: FOREIGN } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets writes from loopback pages, named origins and its own origin through', async () => {
    for (const origin of ['http://localhost:5173', NAMED, emulator.url]) {
      const write = await call('POST', '/kp1/smart-meter-v1/epmx/meter-001-token/update/keys', {
        headers: { origin },
        body: { location: origin },
      });
      expect(write.status, origin).toBe(200);
    }
  });

  it('grants the control plane no CORS and keeps its own-origin rule', async () => {
    const read = await call('GET', '/_EMU/requests', { headers: { origin: 'http://localhost:5173' } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await call('OPTIONS', '/_emu/reset', {
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const reset = await call('POST', '/_emu/reset', { headers: { origin: 'http://localhost:5173' } });
    expect(reset.status).toBe(403);
  });

  it('refuses an --allow-origin that is not an origin', async () => {
    await expect(
      startEmulator({ port: 0, mqttPort: 0, inMemory: true, allowOrigins: ['https://app.example.test/path'] }),
    ).rejects.toThrow(/not an origin/);
  });
});
