import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { acceptedScopes } from '../src/auth/scopes.js';
import { SPEC_STATUSES } from '../src/server/openapi-statuses.js';
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
        expect(success.content !== undefined, name).toBe((route.successStatus ?? 200) !== 204);
      }
    }
    expect(
      document.paths['/epr/api/v1/endpoints'].get.responses['200'].content[
        'application/json'
      ].schema.required.toSorted(),
    ).toEqual(['content', 'totalElements']);
    expect(document.paths['/epr/api/v1/endpoints/{endpointId}'].get.responses['304']).toBeDefined();
  });
});

describe('the document is a contract a generated client can rely on', async () => {
  const emulator = await startTestEmulator();
  const document = (await api(emulator)('GET', '/_emu/openapi.json')).body;
  const op = (path: string, method: string) => document.paths[path][method];
  const operations = JSON.parse(readFileSync(new URL('./spec/operations.json', import.meta.url), 'utf8')) as {
    operations: Array<[string, string, string, string | null]>;
  };

  it('lists the statuses the spec names for each operation, and 401 and 403 (or 404) where it is scoped', () => {
    for (const [prefix, method, path, scope] of operations.operations) {
      const name = `${method} /${prefix}${path}`;
      const answers = Object.keys(op(`/${prefix}/api/v1${path}`, method.toLowerCase()).responses);
      const spec = SPEC_STATUSES[`${prefix} ${method} ${path}`];
      expect(spec, `${name} in SPEC_STATUSES`).toBeDefined();
      for (const status of [...spec.errors, ...(spec.alternatives ?? [])])
        expect(answers, name).toContain(String(status));
      const route = services
        .find((s) => s.prefix === prefix)!
        .routes.find((r) => r.method === method && r.path === path)!;
      if (scope !== null && !route.customAuth) {
        expect(answers, name).toContain('401');
        expect(answers, name).toContain(String(route.deniedStatus ?? 403));
      }
    }
    expect(Object.keys(op('/cex/api/v1/endpoints/{endpointId}/commands/{commandType}', 'post').responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '401', '404', '415']),
    );
    expect(
      Object.keys(op('/ecr/api/v1/endpoints/{endpointId}/app-versions/{appVersionName}', 'put').responses),
    ).toEqual(expect.arrayContaining(['200', '201', '204', '412', '422', '503']));
  });

  it(
    'names the header parameters: X-Auth-Token, If-None-Match / If-Modified-Since, If-Match / ' + 'If-Unmodified-Since',
    () => {
      const headers = (path: string, method: string) =>
        (op(path, method).parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name);
      expect(headers('/bcx/api/v1/binary-data', 'post')).toEqual(['X-Auth-Token']);
      expect(
        op('/bcx/api/v1/binary-data', 'post').parameters.find((p: any) => p.name === 'X-Auth-Token').required,
      ).toBe(true);
      expect(headers('/epr/api/v1/endpoints/{endpointId}', 'get')).toEqual(['If-None-Match', 'If-Modified-Since']);
      expect(headers('/ecr/api/v1/endpoints/{endpointId}/app-versions/{appVersionName}', 'delete')).toEqual([
        'If-Match',
        'If-Unmodified-Since',
      ]);
      expect(headers('/epr/api/v1/endpoints/{endpointId}/metadata/{key}', 'put')).toEqual([
        'If-Match',
        'If-Unmodified-Since',
      ]);
      const got = op('/epr/api/v1/endpoints/{endpointId}', 'get').responses['200'].headers;
      expect(Object.keys(got)).toEqual(['ETag', 'Last-Modified']);
    },
  );

  it('gives success bodies their schemas, downloads as binary, and 204 no body', () => {
    const body = (path: string, method: string, status = '200') =>
      op(path, method).responses[status].content?.['application/json']?.schema;
    expect(body('/epr/api/v1/endpoints/{endpointId}', 'get')).toEqual({ $ref: '#/components/schemas/Endpoint' });
    expect(body('/tenant-manager/api/v1/tenants', 'post', '201')).toEqual({ $ref: '#/components/schemas/Tenant' });
    expect(document.components.schemas.Command.properties.status.description).toMatch(/`pending`/);
    expect(
      op('/bcx/api/v1/applications/{appName}/endpoints/{endpointId}/binary-data/{blobId}/data', 'get').responses['200']
        .content,
    ).toEqual({ 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } });
    expect(
      op('/otao/api/v1/applications/{appName}/software/{softwareVersion}', 'put').responses['204'].content,
    ).toBeUndefined();
    const refs = JSON.stringify(document).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const ref of new Set(refs)) expect(document.components.schemas[ref.split('/').at(-1)!], ref).toBeDefined();
  });

  it('answers 400, 401 and 403 of the identity and access manager without a body, as spec 3 says', () => {
    const responses = op('/iam/api/v1/users', 'post').responses;
    for (const status of ['400', '401', '403']) expect(responses[status].content, status).toBeUndefined();
    expect(op('/ccm/api/v1/basic-credentials', 'post').responses['400'].content).toBeDefined();
  });

  it('marks deprecated operations and the emulator additions', () => {
    expect(op('/epts/api/v1/applications/{applicationName}/time-series/data', 'put').deprecated).toBe(true);
    expect(op('/epts/api/v1/app-versions/{appVersionName}/time-series/data', 'put').deprecated).toBeUndefined();
    for (const method of ['get', 'put', 'patch']) {
      expect(op('/epr/api/v1/endpoints/{endpointId}/metadata', method)['x-platform-emu-addition']).toBe(true);
    }
    expect(op('/epr/api/v1/endpoints/{endpointId}', 'get')['x-platform-emu-addition']).toBeUndefined();
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
