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
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const mounted = services.flatMap((s) => s.routes.map((r) => `${r.method} /${s.prefix}/api/v1${r.path}`));
    expect(documented.sort()).toEqual(mounted.sort());
    expect(documented.some((o) => /\/(_emu|kp1|auth)\//.test(o))).toBe(false);
  });

  it('names each operation scope as an OAuth2 requirement, and the body schema the server checks', () => {
    for (const service of services) {
      for (const route of service.routes) {
        const op = document.paths[`/${service.prefix}/api/v1${route.path}`][route.method.toLowerCase()];
        const expected = route.scope === null || route.customAuth ? [] : acceptedScopes(route.scope).map((s) => ({ realm: [s] }));
        expect(op.security, `${route.method} ${route.path}`).toEqual(expected);
        if (route.bodySchema) expect(op.requestBody.content['application/json'].schema).toEqual(route.bodySchema);
        expect(op.responses.default.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    const register = document.paths['/epr/api/v1/endpoints'].post;
    expect(register.responses['201']).toBeDefined();
    expect(document.paths['/epr/api/v1/endpoints/{endpointId}'].get.parameters).toContainEqual({ name: 'endpointId', in: 'path', required: true, schema: { type: 'string' } });
  });
});
