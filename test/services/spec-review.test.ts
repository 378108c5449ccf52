import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { connectAnswer } from '../helpers/mqtt-connect.js';
import { TM, tenantRequest as newTenant } from '../helpers/tenants.js';

/**
 * Issue 28, "Spec deviations found by an operation-by-operation review": each answer against the spec's words. The
 * command invocation items are in cex.test.ts (status case, 415), the metadata operations in epr-metadata.test.ts.
 */

const tenantRequest = newTenant('spec-review');

describe('spec 1: a 400 never carries an ETag', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('a list flagged etag answers ETag, and its 400 for a bad page parameter none', async () => {
    expect((await call('GET', '/epr/api/v1/endpoints')).headers.get('etag')).toBeTruthy();
    const bad = await call('GET', '/epr/api/v1/endpoints?limit=-1');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('etag')).toBeNull();
    expect(bad.headers.get('last-modified')).toBeNull();
  });
});

describe(
  'application configuration service: PATCH denied is 404 ("application not found, ..., or ' + 'denied")',
  async () => {
    const emulator = await startTestEmulator({ auth: 'on' });

    it('a token without application:update gets 404, one with it 204', async () => {
      const path = '/tekton/api/v1/app-configs/applications/smart-meter/app-versions/smart-meter-v1';
      const patch = [{ op: 'add', path: '/reviewed', value: true }];
      const reader = await tokenFor(emulator, { scopes: ['application:read'] });
      expect((await api(emulator)('PATCH', path, { body: patch, token: reader })).status).toBe(404);
      const writer = await tokenFor(emulator, { scopes: ['application:update'] });
      expect((await api(emulator)('PATCH', path, { body: patch, token: writer })).status).toBe(204);
    });
  },
);

describe('tenant manager', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it(
    'subscription_type is PERMANENT or RENEWAL ("subscription_type | PERMANENT, RENEWAL"); anything else is ' + '400',
    async () => {
      const wrong = await call('POST', `${TM}/tenants`, { body: { ...tenantRequest, subscription_type: 'TRIAL' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.message).toMatch(/subscription_type must be one of "PERMANENT", "RENEWAL"/);
      const renewal = await call('POST', `${TM}/tenants`, { body: { ...tenantRequest, subscription_type: 'RENEWAL' } });
      expect(renewal.status, renewal.text).toBe(201);
      expect(renewal.body.subscription_type).toBe('RENEWAL');
    },
  );

  it('a status or subscription_type filter outside the values the spec lists is 400', async () => {
    expect((await call('GET', `${TM}/tenants?status=AVAILABLE`)).status).toBe(200);
    expect((await call('GET', `${TM}/tenants?status=FAILED`)).body.count).toBe(0);
    const status = await call('GET', `${TM}/tenants?status=available`);
    expect(status.status).toBe(400);
    expect(status.body.message).toMatch(/status must be one of AVAILABLE, CREATING/);
    expect((await call('GET', `${TM}/tenants?subscription_type=TRIAL`)).status).toBe(400);
  });

  it.each([
    ['realms', { accessTokenLifespan: '300' }, /template.accessTokenLifespan must be an integer/],
    ['realms', { bruteForceProtected: 'yes' }, /template.bruteForceProtected must be true or false/],
    ['realms', { supportedLocales: 'en' }, /template.supportedLocales must be an array/],
    ['realms', { browserSecurityHeaders: { xFrameOptions: 1 } }, /xFrameOptions must be a string/],
    ['realm-frontend-clients', { publicClient: 'true' }, /template.publicClient must be true or false/],
    ['realm-backend-clients', { redirectUris: '*' }, /template.redirectUris must be an array/],
  ])('a %s template with %j is 400', async (kind, template, message) => {
    const response = await call('POST', `${TM}/templates/${kind}`, { body: { template, description: 'typed' } });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('template keys of the right type, and keys the spec does not name, are taken', async () => {
    const template = { accessTokenLifespan: 300, bruteForceProtected: true, supportedLocales: ['en'], custom: 'x' };
    const realm = await call('POST', `${TM}/templates/realms`, { body: { template, description: 'typed' } });
    expect(realm.status, realm.text).toBe(201);
    const client = { protocol: 'openid-connect', publicClient: true, webOrigins: ['*'], redirectUris: ['/*'] };
    const created = await call('POST', `${TM}/templates/realm-frontend-clients`, {
      body: { template: client, description: 'spa' },
    });
    expect(created.status, created.text).toBe(201);
  });
});

/** CONNECT with these credentials: `ok`, or the CONNACK return code of the refusal. */
const connect = (mqttUrl: string, username: string, password: string) => connectAnswer(mqttUrl, { username, password });

describe('credentials manager: usernames are "tenant-wide unique"; an MQTT login names its tenant', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);
  const create = async (tenant: string, body: object) =>
    call('POST', '/ccm/api/v1/basic-credentials', {
      body,
      token: await tokenFor(emulator, { tenant, scopes: ['tenant:basic-credentials:create'] }),
    });

  it('two tenants may hold one username; one tenant may not hold it twice', async () => {
    expect((await create('acme', { username: 'gateway-1', password: 'acme-password' })).status).toBe(201);
    expect((await create('globex', { username: 'gateway-1', password: 'globex-password' })).status).toBe(201);
    const again = await create('acme', { username: 'gateway-1' });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already registered in tenant acme/);
  });

  it(
    '<tenantId>/<username> logs in as that tenant’s credential; a bare username only where one tenant holds ' + 'it',
    async () => {
      expect(await connect(emulator.mqttUrl, 'acme/gateway-1', 'acme-password')).toBe('ok');
      expect(await connect(emulator.mqttUrl, 'globex/gateway-1', 'globex-password')).toBe('ok');
      expect(await connect(emulator.mqttUrl, 'globex/gateway-1', 'acme-password')).toBe(4);
      // Two tenants hold gateway-1: the bare name names neither.
      expect(await connect(emulator.mqttUrl, 'gateway-1', 'acme-password')).toBe(4);
      // The fixtures' meter-001 is acme's alone: the bare name still works, as devices configured before did.
      expect(await connect(emulator.mqttUrl, 'meter-001', 'meter-001-password')).toBe('ok');
      expect(await connect(emulator.mqttUrl, 'acme/meter-001', 'meter-001-password')).toBe('ok');
      expect(await connect(emulator.mqttUrl, 'globex/meter-001', 'meter-001-password')).toBe(4);
    },
  );
});

describe('application manager: name auto-generation is a service setting', async () => {
  const generating = await startTestEmulator({ generateAppNames: true });
  const call = api(generating);

  it('on: the name must be empty and is generated', async () => {
    for (const body of [{}, { name: '' }, { name: null, displayName: 'Nameless' }]) {
      const created = await call('POST', '/app-manager/api/v1/applications', { body });
      expect(created.status, created.text).toBe(201);
      expect(created.body.name).toMatch(/^app-[0-9a-f]{8}$/);
    }
    const named = await call('POST', '/app-manager/api/v1/applications', { body: { name: 'chosen' } });
    expect(named.status).toBe(400);
    expect(named.body.message).toMatch(/name must be empty: name auto-generation is on/);
  });
});

describe('application manager, first revision (--compat app-manager=1)', async () => {
  const emulator = await startTestEmulator({ auth: 'on', compat: { 'app-manager': '1' } });
  const call = api(emulator);

  it('only the platform scope creates applications, and tenantId is refused', async () => {
    const tenantToken = await tokenFor(emulator, { scopes: ['tenant:application:create'] });
    const denied = await call('POST', '/app-manager/api/v1/applications', { token: tenantToken, body: { name: 'a1' } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/platform:application:create/);
    const platformToken = await tokenFor(emulator, { scopes: ['platform:application:create'] });
    const created = await call('POST', '/app-manager/api/v1/applications', {
      token: platformToken,
      body: { name: 'a1' },
    });
    expect(created.status, created.text).toBe(201);
    const withTenant = await call('POST', '/app-manager/api/v1/applications?tenantId=acme', {
      token: platformToken,
      body: { name: 'a2' },
    });
    expect(withTenant.status).toBe(400);
    expect(withTenant.body.message).toMatch(/takes no tenantId/);
  });
});

describe('identity and access manager', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it(
    'Location on 201 (spec 1: "Location headers on creation"), and the user resource policy name matches ' +
      '^[a-zA-Z0-9_-]*$',
    async () => {
      const user = await call('POST', '/iam/api/v1/users', {
        body: { email: 'jo.doe@acme.com', username: 'jo.doe@acme', password: 'pw-1', confirmPassword: 'pw-1' },
      });
      expect(user.status, user.text).toBe(201);
      expect(user.headers.get('location')).toBe(`${emulator.url}/iam/api/v1/users/${user.body.data.id}`);
      const group = await call('POST', '/iam/api/v1/groups', { body: { name: 'reviewers' } });
      expect(group.headers.get('location')).toBe(`${emulator.url}/iam/api/v1/groups/${group.body.data.id}`);
      const policy = await call('GET', `/iam/api/v1/users/${user.body.data.id}/policy`);
      expect(policy.body.data.name).toMatch(/^[a-zA-Z0-9_-]*$/);
      expect(policy.body.data.name).toBe('jo_doe_acme-resource-policy');
    },
  );
});

describe('endpoint configuration registry: a form body is not a configuration', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const path = (id: string) => `/ecr/api/v1/endpoints/${id}/app-versions/smart-meter-v1`;

  it('a form body is 415', async () => {
    const form = await call('PUT', path('meter-001'), {
      rawBody: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });
});
