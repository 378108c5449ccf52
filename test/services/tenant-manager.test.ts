import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { TM, tenantRequest } from '../helpers/tenants.js';

const createRequest = tenantRequest('initech', { idp_version: true });

describe('tenant manager', async () => {
  const emulator = await startTestEmulator();
  const secured = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);

  it('lists the fixture tenants with count and results, paged and filtered', async () => {
    const list = await call('GET', `${TM}/tenants`);
    expect(list.body.count).toBe(2);
    expect(list.body.results[0]).toMatchObject({
      id: 'acme',
      realm_name: 'acme',
      status: 'AVAILABLE',
      issuer: `${emulator.url}/auth/realms/acme`,
      client_backend_id: 'acme-backend',
    });
    expect(list.body.results[0]).not.toHaveProperty('tenantId');
    expect((await call('GET', `${TM}/tenants?limit=1&offset=1`)).body.results.map((t: any) => t.id)).toEqual([
      'globex',
    ]);
    expect((await call('GET', `${TM}/tenants?realm_name=globex`)).body.count).toBe(1);
  });

  it('registers a tenant in CREATING, readable by id, whose realm issues tokens at once', async () => {
    const created = await call('POST', `${TM}/tenants`, { body: createRequest });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      realm_name: 'initech',
      status: 'CREATING',
      idp_version: 1,
      issuer: `${emulator.url}/auth/realms/initech`,
    });
    expect((await call('GET', `${TM}/tenants/${created.body.id}`)).body.realm_name).toBe('initech');
    expect((await call('GET', '/auth/realms/initech/.well-known/openid-configuration')).status).toBe(200);
    expect((await call('POST', `${TM}/tenants`, { body: createRequest })).status).toBe(409);
  });

  it('400 names a missing field; 404 for an unknown tenant', async () => {
    const missing = await call('POST', `${TM}/tenants`, {
      body: { ...createRequest, realm_name: 'x2', roles_version: 'one' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/roles_version/);
    expect((await call('GET', `${TM}/tenants/nope`)).status).toBe(404);
  });

  it('an id must be a string of the tenant id pattern, and one that exists is 409, never overwritten', async () => {
    const numeric = await call('POST', `${TM}/tenants`, { body: { ...createRequest, realm_name: 'x3', id: 42 } });
    expect(numeric.status).toBe(400);
    expect(numeric.body.message).toBe('Invalid request body: id must be a string.');
    expect(
      (await call('POST', `${TM}/tenants`, { body: { ...createRequest, realm_name: 'x4', id: '..' } })).status,
    ).toBe(400);
    const taken = await call('POST', `${TM}/tenants`, { body: { ...createRequest, realm_name: 'x5', id: 'acme' } });
    expect(taken.status).toBe(409);
    expect((await call('GET', `${TM}/tenants/acme`)).body.realm_name).toBe('acme');
  });

  it('manages templates of each kind: create, list, get, put, delete', async () => {
    for (const kind of ['realms', 'realm-frontend-clients', 'realm-backend-clients']) {
      const created = await call('POST', `${TM}/templates/${kind}`, {
        body: { template: { accessTokenLifespan: 300 }, description: kind },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        template: { accessTokenLifespan: 300 },
        description: kind,
      });
      const url = `${TM}/templates/${kind}/${created.body.id}`;
      expect((await call('GET', `${TM}/templates/${kind}`)).body.results).toContainEqual(created.body);
      expect((await call('PUT', url, { body: { template: {}, description: 'changed' } })).body.description).toBe(
        'changed',
      );
      expect((await call('PUT', url, { body: { description: 'no template' } })).status).toBe(400);
      expect((await call('DELETE', url)).status).toBe(204);
      expect((await call('GET', url)).status).toBe(404);
      expect((await call('DELETE', url)).status).toBe(404);
      expect((await call('GET', `${TM}/templates/${kind}/abc`)).status).toBe(400);
    }
  });

  it('with auth on, tenant operations need the platform scope', async () => {
    const tenantToken = await tokenFor(secured, { scopes: ['endpoint:read'] });
    expect((await api(secured)('GET', `${TM}/tenants`, { token: tenantToken })).status).toBe(403);
  });
});
