import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/auth/passwords.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { TM, tenantRequest } from '../helpers/tenants.js';
import { assertBuilt, cli } from '../store/emulator-process.js';

async function grant(base: string, realm: string, form: Record<string, string>) {
  const response = await fetch(`${base}/auth/realms/${realm}/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const scopesOf = (token: string) => String((jwt.decode(token) as { scope: string }).scope).split(' ');

describe('platform scopes belong to the platform administrator, not to a tenant', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);

  it("a tenant's own tokens cannot read the tenants, so never another tenant's client_backend_secret", async () => {
    const tenantToken = await tokenFor(emulator);
    expect(scopesOf(tenantToken).some((s) => s.startsWith('platform:'))).toBe(false);
    expect((await call('GET', `${TM}/tenants`, { token: tenantToken })).status).toBe(403);
    expect((await call('GET', `${TM}/tenants/globex`, { token: tenantToken })).status).toBe(403);
    const backend = await grant(emulator.url, 'acme', {
      grant_type: 'client_credentials',
      client_id: 'acme-backend',
      client_secret: 'acme-backend-secret',
    });
    expect((await call('GET', `${TM}/tenants/globex`, { token: backend.body.access_token })).status).toBe(403);
    const dev = await grant(emulator.url, 'acme', {
      grant_type: 'password',
      username: 'dev@acme.test',
      password: 'dev-password',
    });
    expect(dev.body.scope).not.toMatch(/platform:/);
  });

  it('the designated platform user has them, by its password or as `token --platform`', async () => {
    const admin = await grant(emulator.url, 'acme', {
      grant_type: 'password',
      client_id: 'acme-frontend',
      username: 'admin@platform.test',
      password: 'admin-password',
    });
    expect(admin.status).toBe(200);
    expect(admin.body.scope.split(' ')).toEqual(
      expect.arrayContaining(['platform:tenant:read', 'platform:tenant:create', 'platform:application:create']),
    );
    expect(admin.body.scope).not.toMatch(/(^| )endpoint:/);
    const tenants = await call('GET', `${TM}/tenants`, { token: admin.body.access_token });
    expect(tenants.status).toBe(200);
    expect(tenants.body.results.find((t: any) => t.id === 'globex').client_backend_secret).toBe(
      'globex-backend-secret',
    );

    const platform = await tokenFor(emulator, { platform: true });
    expect(jwt.decode(platform)).toMatchObject({ tenant_id: 'acme', sub: 'admin@platform.test' });
    expect((await call('GET', `${TM}/tenants/globex`, { token: platform })).status).toBe(200);
    const named = await call('POST', '/_emu/token', {
      body: { platform: true, tenant: 'globex' },
      token: emulator.adminToken,
    });
    expect(named.status).toBe(400);
    expect(named.body.message).toMatch(/do not name a tenant/);
  });

  describe('platform-emu token --platform', () => {
    beforeAll(assertBuilt);
    it('prints the platform administrator’s token', async () => {
      const result = await cli(['token', '--url', emulator.url, '--platform', '--json'], {
        env: { PLATFORM_EMU_ADMIN_TOKEN: emulator.adminToken },
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const { token, claims } = JSON.parse(String(result.stdout));
      expect(claims).toMatchObject({ tenant_id: 'acme', sub: 'admin@platform.test' });
      expect(claims.scope.split(' ')).toContain('platform:tenant:read');
      expect((await call('GET', `${TM}/tenants`, { token })).status).toBe(200);
    });
  });
});

describe("a created tenant's realm works end to end, and its tokens reach only its own data", async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);
  const platform = await tokenFor(emulator, { platform: true });
  const acme = await tokenFor(emulator);

  const created = await call('POST', `${TM}/tenants`, { token: platform, body: tenantRequest('initech') });
  const tenant = created.body;
  const realm = `${emulator.url}/auth/realms/initech`;

  it('is created in CREATING and read back by id and in the list', async () => {
    expect(created.status).toBe(201);
    expect(tenant).toMatchObject({
      realm_name: 'initech',
      status: 'CREATING',
      client_backend_id: 'initech-backend',
      client_frontend_id: 'initech-frontend',
      issuer: realm,
    });
    expect((await call('GET', `${TM}/tenants/${tenant.id}`, { token: platform })).body.client_backend_secret).toBe(
      tenant.client_backend_secret,
    );
    expect((await call('GET', `${TM}/tenants?realm_name=initech`, { token: platform })).body.count).toBe(1);
  });

  it('answers discovery and JWKS, and its backend client is a working client_credentials client', async () => {
    const discovery = await call('GET', '/auth/realms/initech/.well-known/openid-configuration');
    expect(discovery.body).toMatchObject({
      issuer: realm,
      token_endpoint: `${realm}/protocol/openid-connect/token`,
      jwks_uri: `${realm}/protocol/openid-connect/certs`,
    });
    const issued = await grant(emulator.url, 'initech', {
      grant_type: 'client_credentials',
      client_id: tenant.client_backend_id,
      client_secret: tenant.client_backend_secret,
    });
    expect(issued.status).toBe(200);
    const { payload } = await jwtVerify(
      issued.body.access_token,
      createRemoteJWKSet(new URL(discovery.body.jwks_uri)),
      { issuer: realm },
    );
    expect(payload.tenant_id).toBe(tenant.id);
    const wrong = await grant(emulator.url, 'initech', {
      grant_type: 'client_credentials',
      client_id: tenant.client_backend_id,
      client_secret: 'acme-backend-secret',
    });
    expect(wrong.status).toBe(401);
    // Another realm's client is not this realm's.
    expect(
      (
        await grant(emulator.url, 'initech', {
          grant_type: 'client_credentials',
          client_id: 'acme-backend',
          client_secret: 'acme-backend-secret',
        })
      ).status,
    ).toBe(401);
  });

  it('registers its own endpoint and cannot see another tenant’s, nor be seen', async () => {
    const token = (
      await grant(emulator.url, 'initech', {
        grant_type: 'client_credentials',
        client_id: tenant.client_backend_id,
        client_secret: tenant.client_backend_secret,
      })
    ).body.access_token;
    expect((await call('GET', '/epr/api/v1/endpoints', { token })).body.totalElements).toBe(0);
    expect(
      (await call('POST', '/app-manager/api/v1/applications', { token, body: { name: 'initech-app' } })).status,
    ).toBe(201);
    expect(
      (
        await call('POST', '/app-manager/api/v1/applications/initech-app/versions', {
          token,
          body: { name: 'initech-app-v1' },
        })
      ).status,
    ).toBe(201);
    const registered = await call('POST', '/epr/api/v1/endpoints', {
      token,
      body: { appVersion: { name: 'initech-app-v1' }, endpointId: 'initech-001' },
    });
    expect(registered.status).toBe(201);
    const own = await call('GET', '/epr/api/v1/endpoints', { token });
    expect(own.body.content.map((e: any) => e.endpointId)).toEqual(['initech-001']);
    expect((await call('GET', '/epr/api/v1/endpoints/meter-001', { token })).status).toBe(404);
    expect((await call('GET', '/epr/api/v1/endpoints/initech-001', { token: acme })).status).toBe(404);
    expect((await call('GET', '/epr/api/v1/endpoints', { token: acme })).body.totalElements).toBe(10);
    // A tenant's own token has every tenant scope, none of the platform's.
    expect((await call('GET', `${TM}/tenants/acme`, { token })).status).toBe(403);
  });

  it('its identity and access manager users log in through its frontend client', async () => {
    const token = (
      await grant(emulator.url, 'initech', {
        grant_type: 'client_credentials',
        client_id: tenant.client_backend_id,
        client_secret: tenant.client_backend_secret,
      })
    ).body.access_token;
    const policy = (
      await call('POST', '/iam/api/v1/policies', {
        token,
        body: { name: 'read', statements: [{ effect: 'allow', actions: ['endpoint:read'] }] },
      })
    ).body.data;
    const user = {
      email: 'bill@initech.com',
      username: 'bill',
      password: 'tps-report',
      confirmPassword: 'tps-report',
      enabled: true,
      policyIDs: [policy.id],
    };
    expect((await call('POST', '/iam/api/v1/users', { token, body: user })).status).toBe(201);
    const login = await grant(emulator.url, 'initech', {
      grant_type: 'password',
      client_id: 'initech-frontend',
      username: 'bill',
      password: 'tps-report',
    });
    expect(login.status).toBe(200);
    expect(login.body.scope).toBe('endpoint:read');
    expect(jwt.decode(login.body.access_token)).toMatchObject({
      tenant_id: tenant.id,
      preferred_username: 'bill',
      azp: 'initech-frontend',
    });
    expect(
      (await call('GET', '/epr/api/v1/endpoints', { token: login.body.access_token })).body.content.map(
        (e: any) => e.endpointId,
      ),
    ).toEqual(['initech-001']);
    // Not a user of another realm.
    expect(
      (await grant(emulator.url, 'acme', { grant_type: 'password', username: 'bill', password: 'tps-report' })).status,
    ).toBe(401);
  });

  it('is gone after a reset to the fixtures: its realm answers 404 and its tokens 401', async () => {
    const token = (
      await grant(emulator.url, 'initech', {
        grant_type: 'client_credentials',
        client_id: tenant.client_backend_id,
        client_secret: tenant.client_backend_secret,
      })
    ).body.access_token;
    await emulator.reset();
    expect((await call('GET', '/auth/realms/initech/.well-known/openid-configuration')).status).toBe(404);
    expect((await call('GET', '/epr/api/v1/endpoints', { token })).status).toBe(401);
    expect((await call('GET', `${TM}/tenants/${tenant.id}`, { token: platform })).status).toBe(404);
  });
});

describe('fixture and import passwords', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-realms-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fixtures = join(dir, 'fixtures.json');
  writeFileSync(
    fixtures,
    JSON.stringify({
      tenants: [
        {
          id: 'solo',
          realm_name: 'solo',
          users: [
            { username: 'hashed', password: await hashPassword('from-a-hash') },
            { username: 'clear', password: 'in-clear' },
          ],
        },
      ],
    }),
  );
  const emulator = await startTestEmulator({ fixtures, auth: 'on' });
  const call = api(emulator);

  it('a fixture password may be a hash (kept as it is) or clear text (hashed); both log in', async () => {
    expect(
      (await grant(emulator.url, 'solo', { grant_type: 'password', username: 'hashed', password: 'from-a-hash' }))
        .status,
    ).toBe(200);
    expect(
      (await grant(emulator.url, 'solo', { grant_type: 'password', username: 'clear', password: 'in-clear' })).status,
    ).toBe(200);
    expect(
      (await grant(emulator.url, 'solo', { grant_type: 'password', username: 'hashed', password: 'in-clear' })).status,
    ).toBe(401);
  });

  it('a fixture tenant without clients still has the working backend client its record names', async () => {
    const state = (await call('GET', '/_emu/state?includeSecrets=true', { token: emulator.adminToken })).body;
    const tenant = state.collections.tenants.solo;
    const issued = await grant(emulator.url, 'solo', {
      grant_type: 'client_credentials',
      client_id: tenant.client_backend_id,
      client_secret: tenant.client_backend_secret,
    });
    expect(issued.status).toBe(200);
  });

  it('a state import keeps hashes as they are, and refuses a clear password', async () => {
    const state = (await call('GET', '/_emu/state?includeSecrets=true', { token: emulator.adminToken })).body;
    expect((await call('PUT', '/_emu/state', { body: state, token: emulator.adminToken })).status).toBe(204);
    expect(
      (await grant(emulator.url, 'solo', { grant_type: 'password', username: 'hashed', password: 'from-a-hash' }))
        .status,
    ).toBe(200);
    state.collections['realm-users']['solo/clear'].passwordHash = 'in-clear';
    const refused = await call('PUT', '/_emu/state', { body: state, token: emulator.adminToken });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/realm-users\["solo\/clear"\].*passwordHash must match pattern/);
  });
});
