import { internalContext } from '../src/emulator.js';
import { generateKeyPairSync } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from './helpers/emulator.js';

const ENDPOINTS = '/epr/api/v1/endpoints';

describe('auth on: the emulator is the OpenID Connect issuer of every tenant realm', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);
  const realm = `${emulator.url}/auth/realms/acme`;

  async function grant(realmName: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    const response = await fetch(`${emulator.url}/auth/realms/${realmName}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  it('publishes a discovery document and a JWKS', async () => {
    const discovery = await call('GET', '/auth/realms/acme/.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    expect(discovery.body).toMatchObject({
      issuer: realm,
      token_endpoint: `${realm}/protocol/openid-connect/token`,
      jwks_uri: `${realm}/protocol/openid-connect/certs`,
    });
    const jwks = await call('GET', '/auth/realms/acme/protocol/openid-connect/certs');
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect((await call('GET', '/auth/realms/nope/.well-known/openid-configuration')).status).toBe(404);
  });

  it('issues client_credentials tokens that an independent JOSE library verifies against the JWKS', async () => {
    const issued = await grant('acme', {
      grant_type: 'client_credentials',
      client_id: 'acme-backend',
      client_secret: 'acme-backend-secret',
    });
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const jwks = createRemoteJWKSet(new URL(`${realm}/protocol/openid-connect/certs`));
    const { payload, protectedHeader } = await jwtVerify(issued.body.access_token, jwks, {
      issuer: realm,
      algorithms: ['RS256'],
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.tenant_id).toBe('acme');
    expect(String(payload.scope).split(' ')).toContain('endpoint:read');
    expect((await call('GET', ENDPOINTS, { token: issued.body.access_token })).status).toBe(200);
  });

  it('accepts client credentials in HTTP Basic, narrows to requested scopes, refuses others', async () => {
    const basic = `Basic ${Buffer.from('acme-backend:acme-backend-secret').toString('base64')}`;
    const narrowed = await grant(
      'acme',
      { grant_type: 'client_credentials', scope: 'endpoint:read' },
      { authorization: basic },
    );
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('endpoint:read');
    const wrong = await grant('acme', {
      grant_type: 'client_credentials',
      client_id: 'acme-backend',
      client_secret: 'nope',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_client', message: expect.any(String) });
    // A bad percent-encoding in Basic credentials is the client's mistake: 401, never a 500 "URI malformed".
    const malformed = await grant(
      'acme',
      { grant_type: 'client_credentials' },
      { authorization: `Basic ${Buffer.from('acme%E0%A4%A:x').toString('base64')}` },
    );
    expect(malformed.status).toBe(401);
    expect(malformed.body).toMatchObject({
      error: 'invalid_client',
      message: expect.stringContaining('percent-encoded'),
    });
  });

  it('issues password-grant tokens for fixture users, with their scopes', async () => {
    const viewer = await grant('acme', {
      grant_type: 'password',
      client_id: 'acme-backend',
      username: 'viewer@acme.test',
      password: 'viewer-password',
    });
    expect(viewer.status).toBe(200);
    expect(viewer.body.scope.split(' ').sort()).toEqual(['application:read', 'endpoint:read']);
    const token = viewer.body.access_token;
    expect((await call('GET', ENDPOINTS, { token })).status).toBe(200);
    const denied = await call('POST', ENDPOINTS, { token, body: { appVersion: { name: 'tracker-v1' } } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/application:endpoint:create/);
    expect(
      (await grant('acme', { grant_type: 'password', username: 'viewer@acme.test', password: 'wrong' })).status,
    ).toBe(401);
    expect((await grant('acme', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code' })).body.error).toBe(
      'unsupported_grant_type',
    );
    // The authorization code grant needs a code from the login page (test/auth-code.test.ts).
    expect((await grant('acme', { grant_type: 'authorization_code' })).body.error).toBe('invalid_grant');
    // A user of one realm is not a user of another.
    expect(
      (await grant('globex', { grant_type: 'password', username: 'viewer@acme.test', password: 'viewer-password' }))
        .status,
    ).toBe(401);
  });

  describe('401 for no or bad tokens, with a message', () => {
    const sign = (claims: object, key: string, options: jwt.SignOptions) => jwt.sign(claims, key, options);
    const foreignKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();

    it.each([
      ['no header', undefined],
      ['not a bearer header', 'Basic abc'],
      ['garbage', 'Bearer not.a.token'],
    ])('%s', async (_name, header) => {
      const response = await call('GET', ENDPOINTS, { headers: header ? { authorization: header } : {} });
      expect(response.status).toBe(401);
      expect(response.body.message).toEqual(expect.any(String));
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it('expired', async () => {
      const token = await tokenFor(emulator, { ttlSeconds: 1 });
      const expired = jwt.decode(token) as any;
      const response = await call('GET', ENDPOINTS, {
        token: jwt.sign({ ...expired, exp: Math.floor(Date.now() / 1000) - 10 }, 'x', { algorithm: 'HS256' }),
      });
      expect(response.status).toBe(401);
    });

    it(
      'signed by another key, alg none, HMAC with the public key, unknown issuer, or a tenant that is not the ' +
        'realm’s',
      async () => {
        const claims = { tenant_id: 'acme', scope: 'endpoint:read', sub: 'x' };
        const jwks = await call('GET', '/auth/realms/acme/protocol/openid-connect/certs');
        const bad = [
          sign(claims, foreignKey, { algorithm: 'RS256', issuer: realm, expiresIn: 60 }),
          `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.` +
            `${Buffer.from(JSON.stringify({ ...claims, iss: realm })).toString('base64url')}.`,
          sign(claims, JSON.stringify(jwks.body.keys[0]), { algorithm: 'HS256', issuer: realm, expiresIn: 60 }),
        ];
        for (const token of bad) expect((await call('GET', ENDPOINTS, { token })).status).toBe(401);
      },
    );

    it('signed with the emulator’s key but naming an unknown realm, or a tenant that is not the realm’s', async () => {
      const key = internalContext(emulator).keys.privateKeyPem;
      const options: jwt.SignOptions = { algorithm: 'RS256', keyid: internalContext(emulator).keys.kid, expiresIn: 60 };
      const unknownRealm = jwt.sign({ tenant_id: 'acme', scope: 'endpoint:read', sub: 'x' }, key, {
        ...options,
        issuer: `${emulator.url}/auth/realms/nope`,
      });
      const noRealm = jwt.sign({ tenant_id: 'acme', scope: 'endpoint:read', sub: 'x' }, key, {
        ...options,
        issuer: 'https://elsewhere.example',
      });
      const wrongTenant = jwt.sign({ tenant_id: 'globex', scope: 'endpoint:read', sub: 'x' }, key, {
        ...options,
        issuer: realm,
      });
      const right = jwt.sign({ tenant_id: 'acme', scope: 'endpoint:read', sub: 'x' }, key, {
        ...options,
        issuer: realm,
      });
      for (const token of [unknownRealm, noRealm, wrongTenant]) {
        const response = await call('GET', ENDPOINTS, { token });
        expect(response.status).toBe(401);
        expect(response.body.message).toMatch(/issuer|tenant_id/);
      }
      expect((await call('GET', ENDPOINTS, { token: right })).status).toBe(200);
    });

    it('a token of one tenant cannot claim another: issuer and tenant_id must agree', async () => {
      const globex = jwt.decode(await tokenFor(emulator, { tenant: 'globex' })) as any;
      expect(globex.tenant_id).toBe('globex');
      expect(globex.iss).toMatch(/\/auth\/realms\/globex$/);
    });
  });

  it('403 for a missing scope, 404 where the spec says "not found or denied"', async () => {
    const token = await tokenFor(emulator, { scopes: ['application:read'] });
    expect((await call('GET', ENDPOINTS, { token })).status).toBe(403);
    expect((await call('GET', `${ENDPOINTS}/meter-001`, { token })).status).toBe(404);
  });

  it('scopes "on the platform-system resource" are written platform:…', async () => {
    const token = await tokenFor(emulator, { scopes: ['platform:tenant:read'] });
    const tenants = await call('GET', '/tenant-manager/api/v1/tenants', { token });
    expect(tenants.status).toBe(200);
    expect(tenants.body.results.map((t: any) => t.id)).toEqual(['acme', 'globex']);
  });
});

describe('auth off', async () => {
  const emulator = await startTestEmulator();
  it('needs no header and acts in the default tenant; a header is ignored', async () => {
    const call = api(emulator);
    expect((await call('GET', ENDPOINTS)).body.totalElements).toBe(10);
    expect((await call('GET', ENDPOINTS, { headers: { authorization: 'Bearer whatever' } })).status).toBe(200);
  });
});
