import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from './helpers/emulator.js';

describe('HTTP conventions shared by every service', async () => {
  const emulator = await startTestEmulator({ bodyLimit: 1024 });
  const call = api(emulator);

  it('/_emu/health is ready with version, URL and services', async () => {
    const health = await call('GET', '/_emu/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'ready',
      version: expect.any(String),
      url: emulator.url,
      inMemory: true,
    });
    expect(health.body.services.map((s: any) => s.name)).toContain('epr');
  });

  it('an unknown path is a JSON 404 naming it', async () => {
    for (const path of ['/nope', '/epr/api/v1/nope', '/api/v1/nope', '/epr/api/v2/endpoints']) {
      const response = await call('GET', path);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      expect(response.body.message).toContain(path);
    }
  });

  it('a wrong method is 405 with Allow, under a prefix and at the bare /api/v1', async () => {
    for (const path of ['/epr/api/v1/endpoints', '/api/v1/endpoints']) {
      const response = await call('DELETE', path);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST, GET, HEAD');
      expect(response.body.message).toMatch(/DELETE is not allowed/);
    }
  });

  it('malformed JSON is 400, a body over --body-limit is 413, both JSON', async () => {
    const malformed = await call('POST', '/epr/api/v1/endpoints', {
      rawBody: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/not valid JSON/);
    const huge = await call('POST', '/epr/api/v1/endpoints', {
      body: { appVersion: { name: 'tracker-v1' }, metadata: { blob: 'x'.repeat(5000) } },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.message).toMatch(/1024 bytes/);
    expect((await call('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements).toBe(10);
  });

  it('a JSON body is read whatever the Content-Type says', async () => {
    const response = await call('POST', '/epr/api/v1/endpoints', {
      rawBody: JSON.stringify({ appVersion: { name: 'tracker-v1' }, endpointId: 'plain-text-1' }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(201);
  });

  it('a bad parameter is 400 naming it', async () => {
    const response = await call('GET', '/epr/api/v1/endpoints?offset=abc');
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/offset/);
  });

  it('an undecodable path is a JSON 400, never an HTML page', async () => {
    const response = await call('GET', '/epr/api/v1/endpoints/%E0%A4%A');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(response.body.message).toEqual(expect.any(String));
  });

  it('repeated slashes are merged, as the platform’s ingress does', async () => {
    const response = await call('GET', '/epr/api/v1//endpoints//meter-001');
    expect(response.status).toBe(200);
    expect(response.body.endpointId).toBe('meter-001');
  });

  it('datetimes are ISO 8601 UTC', async () => {
    const endpoint = await call('GET', '/epr/api/v1/endpoints/meter-001');
    expect(endpoint.body.createdDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('If-Match that does not match gives 412 and change nothing', async () => {
    const base = '/tenant-manager/api/v1/templates/realm-frontend-clients';
    const created = await call('POST', base, { body: { template: { protocol: 'openid-connect' }, description: 'v1' } });
    expect(created.status).toBe(201);
    const url = created.headers.get('location')!.slice(emulator.url.length);
    const current = await call('GET', url);
    const etag = current.headers.get('etag')!;
    expect((await call('GET', url, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const stale = await call('PUT', url, {
      headers: { 'if-match': '"12345"' },
      body: { template: {}, description: 'v2' },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.message).toMatch(/nothing was changed/);
    expect((await call('DELETE', url, { headers: { 'if-match': '"12345"' } })).status).toBe(412);
    expect((await call('GET', url)).body.description).toBe('v1');

    const matching = await call('PUT', url, {
      headers: { 'if-match': (await call('GET', url)).headers.get('etag')! },
      body: { template: {}, description: 'v3' },
    });
    expect(matching.status).toBe(200);
    expect((await call('GET', url)).body.description).toBe('v3');
  });
});
