import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { acceptedScopes } from '../src/auth/scopes.js';
import { services } from '../src/services/index.js';
import { api, startTestEmulator } from './helpers/emulator.js';

describe('GET /_emu/openapi.json', async () => {
  const emulator = await startTestEmulator();
  const document = (await api(emulator)('GET', '/_emu/openapi.json')).body;

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: emulator.url }]);
  });

  it('covers exactly the route table: every mounted operation, nothing else', () => {
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const mounted = services.flatMap((s) => s.routes.map((r) => `${r.method} /${s.prefix}/api/v1${r.path}`));
    expect(documented.sort()).toEqual(mounted.sort());
    expect(documented.some((o) => /\/(_emu|kp1|auth)\//.test(o))).toBe(false);
  });

  it('names each operation scope as an OAuth2 requirement, and the body schema the server checks', () => {
    for (const service of services) {
      for (const route of service.routes) {
        const op = document.paths[`/${service.prefix}/api/v1${route.path}`][route.method.toLowerCase()];
        const expected =
          route.scope === null || route.customAuth ? [] : acceptedScopes(route.scope).map((s) => ({ realm: [s] }));
        expect(op.security, `${route.method} ${route.path}`).toEqual(expected);
        if (route.bodySchema) expect(op.requestBody.content['application/json'].schema).toEqual(route.bodySchema);
        expect(op.responses.default.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    const register = document.paths['/epr/api/v1/endpoints'].post;
    expect(register.responses['201'].headers.Location).toBeDefined();
    expect(register.responses['201']).toBeDefined();
    expect(document.paths['/epr/api/v1/endpoints/{endpointId}'].get.parameters).toContainEqual({
      name: 'endpointId',
      in: 'path',
      required: true,
      schema: { type: 'string' },
    });
  });

  it('says what the route table records: additions, the page envelope, Location and ETag', async () => {
    for (const service of services) {
      for (const route of service.routes) {
        const op = document.paths[`/${service.prefix}/api/v1${route.path}`][route.method.toLowerCase()];
        const name = `${route.method} /${service.prefix}${route.path}`;
        expect(op['x-platform-emu-addition'], name).toBe(route.addition);
        const success = op.responses[String(route.successStatus ?? 200)];
        expect(success.headers?.Location !== undefined, name).toBe(route.location === true);
        expect(success.headers?.ETag !== undefined, name).toBe(route.etag === true);
        expect(success.content !== undefined, name).toBe(route.paging !== undefined);
      }
    }
    expect(
      document.paths['/epr/api/v1/endpoints'].get.responses['200'].content['application/json'].schema.required,
    ).toEqual(['content', 'totalElements']);
    expect(document.paths['/epr/api/v1/endpoints/{endpointId}'].get.responses['304']).toBeDefined();
  });
});

describe('the route flags the document shows', async () => {
  // An emulator of its own: the one above sits idle while its document is validated, past its keep-alive.
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('hold: a list flagged etag answers ETag and 304, a create flagged location answers Location', async () => {
    const listed = await call('GET', '/epr/api/v1/endpoints');
    expect(listed.headers.get('etag')).toBeTruthy();
    expect(
      (await call('GET', '/epr/api/v1/endpoints', { headers: { 'If-None-Match': listed.headers.get('etag')! } }))
        .status,
    ).toBe(304);
    const registered = await call('POST', '/epr/api/v1/endpoints', {
      body: { endpointId: 'openapi-flags', appVersion: { name: 'smart-meter-v1' } },
    });
    expect(registered.status, registered.text).toBe(201);
    expect(registered.headers.get('location')).toMatch(/\/epr\/api\/v1\/endpoints\/openapi-flags$/);
  });
});
