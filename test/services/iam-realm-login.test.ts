import { describe, expect, it } from 'vitest';
import { allScopes } from '../../src/auth/scopes.js';
import { services } from '../../src/services/index.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { expectBare, IAM, newUser } from '../helpers/iam.js';

describe(
  "coherence: an identity and access manager user logs in to the tenant's realm, with its policies' " + 'scopes',
  async () => {
    const emulator = await startTestEmulator({ auth: 'on' });
    const call = api(emulator);
    const admin = await tokenFor(emulator);

    async function login(realm: string, username: string, password: string, clientId = `${realm}-frontend`) {
      const response = await fetch(`${emulator.url}/auth/realms/${realm}/protocol/openid-connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', client_id: clientId, username, password }),
      });
      return { status: response.status, body: (await response.json()) as any };
    }
    const post = async (path: string, body: unknown) => {
      const response = await call('POST', `${IAM}${path}`, { token: admin, body });
      expect(response.status, `${path} ${response.headers.get('x-platform-emu-message')}`).toBeLessThan(300);
      return response.body?.data;
    };

    it('is allowed and refused exactly as the attached policy says (allow minus deny, `*` suffixes)', async () => {
      const policy = await post('/policies', {
        name: 'field-engineer',
        statements: [
          { effect: 'allow', actions: ['endpoint:*', 'application:read', 'platform:tenant:read', 'no:such:scope'] },
          { effect: 'deny', actions: ['endpoint:update'] },
        ],
      });
      const user = await post(
        '/users',
        newUser({ username: 'field-eng', enabled: true, password: 's3cret', confirmPassword: 's3cret' }),
      );
      expect(
        (
          await call('POST', `${IAM}/users/${user.id}/policies/attach`, {
            token: admin,
            body: { policyIDs: [policy.id] },
          })
        ).status,
      ).toBe(204);

      const granted = await login('acme', 'field-eng', 's3cret');
      expect(granted.status).toBe(200);
      // endpoint:* is every endpoint scope but the denied one; the platform family is never a tenant user's.
      const endpointScopes = allScopes(services).filter((s) => s.startsWith('endpoint:') && s !== 'endpoint:update');
      expect(endpointScopes).toContain('endpoint:read');
      expect(granted.body.scope.split(' ').sort()).toEqual(['application:read', ...endpointScopes].sort());
      const token = granted.body.access_token;
      expect((await call('GET', '/epr/api/v1/endpoints', { token })).status).toBe(200);
      expect((await call('GET', '/app-manager/api/v1/applications', { token })).status).toBe(200);
      // Denied: command invocation answers a missing scope with 404 ("not found or denied").
      const denied = await call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot', {
        token,
        body: { payload: {} },
      });
      expect(denied.status).toBe(404);
      const allowedScope = await tokenFor(emulator, { scopes: ['endpoint:update'] });
      expect(
        (
          await call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', {
            token: allowedScope,
            body: { payload: {} },
          })
        ).status,
      ).not.toBe(404);
      expect(
        (await call('POST', '/epr/api/v1/endpoints', { token, body: { appVersion: { name: 'tracker-v1' } } })).status,
      ).toBe(403);
      expect((await call('GET', '/tenant-manager/api/v1/tenants', { token })).status).toBe(403);
      expectBare(await call('GET', `${IAM}/users`, { token }), 403);
    });

    it(
      "adds the policies of the user's groups and their parents; detaching takes scopes away from the next " + 'token',
      async () => {
        const creators = await post('/policies', {
          name: 'creators',
          statements: [{ effect: 'allow', actions: ['application:endpoint:create'] }],
        });
        const readers = await post('/policies', {
          name: 'iam-readers',
          statements: [{ effect: 'allow', actions: ['iam:user:read'] }],
        });
        const own = await post('/policies', {
          name: 'own',
          statements: [{ effect: 'allow', actions: ['endpoint:read'] }],
        });
        const parent = await post('/groups', { name: 'ops', policyIDs: [readers.id] });
        const child = await post('/groups', { name: 'installers', parentID: parent.id, policyIDs: [creators.id] });
        const user = await post(
          '/users',
          newUser({ username: 'installer', enabled: true, groups: [child.id], policyIDs: [own.id] }),
        );

        const first = await login('acme', 'installer', 'pw-1');
        expect(first.body.scope.split(' ').sort()).toEqual([
          'application:endpoint:create',
          'endpoint:read',
          'iam:user:read',
        ]);
        const registered = await call('POST', '/epr/api/v1/endpoints', {
          token: first.body.access_token,
          body: { appVersion: { name: 'tracker-v1' } },
        });
        expect(registered.status).toBe(201);
        expect((await call('GET', `${IAM}/users`, { token: first.body.access_token })).status).toBe(200);

        await call('POST', `${IAM}/users/${user.id}/policies/detach`, { token: admin, body: { policyIDs: [own.id] } });
        const second = await login('acme', 'installer', 'pw-1');
        expect(second.body.scope.split(' ').sort()).toEqual(['application:endpoint:create', 'iam:user:read']);
        expect((await call('GET', '/epr/api/v1/endpoints', { token: second.body.access_token })).status).toBe(403);
      },
    );

    it(
      'refuses a wrong password, a disabled user, a user of another realm, and an unknown client; no client is ' +
        'fine',
      async () => {
        await post('/users', newUser({ username: 'disabled-user' }));
        await post('/users', newUser({ username: 'enabled-user', enabled: true }));
        expect((await login('acme', 'enabled-user', 'wrong')).body).toMatchObject({ error: 'invalid_grant' });
        expect((await login('acme', 'enabled-user', 'wrong')).status).toBe(401);
        const disabled = await login('acme', 'disabled-user', 'pw-1');
        expect(disabled.status).toBe(400);
        expect(disabled.body).toMatchObject({
          error: 'invalid_grant',
          error_description: expect.stringMatching(/disabled/),
        });
        expect((await login('globex', 'enabled-user', 'pw-1', 'globex-frontend')).status).toBe(401);
        expect((await login('acme', 'enabled-user', 'pw-1', 'nope')).body.error).toBe('invalid_client');
        const noClient = await fetch(`${emulator.url}/auth/realms/acme/protocol/openid-connect/token`, {
          method: 'POST',
          body: new URLSearchParams({ grant_type: 'password', username: 'enabled-user', password: 'pw-1' }),
        });
        expect(noClient.status).toBe(200);
        // A user without policies gets a token without scopes.
        expect(((await noClient.json()) as any).scope).toBe('');
      },
    );

    it('a deleted user cannot log in', async () => {
      const user = await post('/users', newUser({ username: 'leaving', enabled: true }));
      expect((await login('acme', 'leaving', 'pw-1')).status).toBe(200);
      await call('POST', `${IAM}/users/delete`, { token: admin, body: { userIDs: [user.id] } });
      expect((await login('acme', 'leaving', 'pw-1')).status).toBe(401);
    });
  },
);
