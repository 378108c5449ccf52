import { describe, expect, it } from 'vitest';
import { allScopes } from '../../src/auth/scopes.js';
import { services } from '../../src/services/index.js';
import { api, startTestEmulator, tokenFor, type ApiResponse } from '../helpers/emulator.js';

const IAM = '/iam/api/v1';
let serial = 0;

/** A valid create request; the spec's e-mail pattern wants a 2-3 letter top-level domain. */
function newUser(fields: Record<string, unknown> = {}) {
  const n = ++serial;
  return { email: `user${n}@acme.com`, username: `user-${n}`, password: 'pw-1', confirmPassword: 'pw-1', ...fields };
}

/** 400, 401 and 403 of the identity and access manager have no body (spec 3); the reason is in a header. */
function expectBare(response: ApiResponse, status: number, reason?: RegExp) {
  expect(response.status).toBe(status);
  expect(response.text).toBe('');
  if (reason) expect(response.headers.get('x-platform-emu-message')).toMatch(reason);
}

describe('identity and access manager: users', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('creates a user: { data } with the record, defaults, krn; never a password', async () => {
    const request = newUser({
      firstName: 'Ada',
      lastName: 'Lovelace',
      path: 'engineering/berlin',
      sendVerifyEmail: false,
      redirectUri: 'http://app.test/',
    });
    const created = await call('POST', `${IAM}/users`, { body: request });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      idpID: expect.any(String),
      created: expect.any(String),
      updated: expect.any(String),
      tenantID: 'acme',
      email: request.email,
      username: request.username,
      enabled: false,
      path: 'engineering/berlin',
      krn: `krn:iam:acme::user/engineering/berlin/${request.username}`,
      firstName: 'Ada',
      lastName: 'Lovelace',
      policyIDs: [],
      groups: [],
      sendVerifyEmail: false,
      redirectUri: 'http://app.test/',
    });
    expect(created.text).not.toMatch(/password/i);
    const plain = await call('POST', `${IAM}/users`, { body: newUser({ username: 'no-path' }) });
    expect(plain.body.data.krn).toBe('krn:iam:acme::user/no-path');
  });

  it.each([
    ['different passwords', { confirmPassword: 'other' }, /password and confirmPassword differ/],
    ['an e-mail outside the pattern', { email: 'Dev@acme.com' }, /email must match pattern/],
    ['a four-letter top-level domain', { email: 'dev@acme.test' }, /email must match pattern/],
    ['a username outside the pattern', { username: 'a b' }, /username must match pattern/],
    ['no username', { username: undefined }, /username is required/],
    ['no email', { email: undefined }, /email is required/],
    ['no confirmPassword', { confirmPassword: undefined }, /confirmPassword is required/],
    ['enabled that is not a boolean', { enabled: 'yes' }, /enabled must be true or false/],
    ['an unknown group', { groups: ['nope'] }, /There is no group nope/],
    ['an unknown policy', { policyIDs: ['nope'] }, /There is no policy nope/],
  ])('400 without a body for %s', async (_name, fields, reason) => {
    expectBare(await call('POST', `${IAM}/users`, { body: newUser(fields) }), 400, reason);
  });

  it('400 without a body for malformed JSON too', async () => {
    expectBare(
      await call('POST', `${IAM}/users`, { rawBody: '{"email":', headers: { 'content-type': 'application/json' } }),
      400,
      /not valid JSON/,
    );
  });

  it('409 for a username or e-mail the tenant has already, or a realm user of the fixtures', async () => {
    const first = newUser();
    expect((await call('POST', `${IAM}/users`, { body: first })).status).toBe(201);
    const sameName = await call('POST', `${IAM}/users`, { body: newUser({ username: first.username }) });
    expect(sameName.status).toBe(409);
    expect(sameName.body.message).toMatch(/username/);
    expect((await call('POST', `${IAM}/users`, { body: newUser({ email: first.email }) })).status).toBe(409);
    expect((await call('POST', `${IAM}/users`, { body: newUser({ username: 'dev@acme.test' }) })).status).toBe(409);
  });

  describe('the list', async () => {
    const listing = await startTestEmulator();
    const list = api(listing);
    const names = ['carol', 'alice', 'dave', 'bob'];
    for (const [i, name] of names.entries()) {
      await list('POST', `${IAM}/users`, {
        body: newUser({ username: name, email: `${name}@corp.com`, path: i % 2 ? 'ops' : 'dev' }),
      });
    }
    for (let i = 0; i < 8; i++)
      await list('POST', `${IAM}/users`, { body: newUser({ email: `filler${i}@other.com` }) });

    it('pages with page 1 and pageSize 10 by default; count is every user, pageSize the number returned', async () => {
      const first = await list('GET', `${IAM}/users`);
      expect(first.body).toMatchObject({ count: 12, page: 1, pageSize: 10 });
      expect(first.body.data).toHaveLength(10);
      const second = await list('GET', `${IAM}/users?page=2`);
      expect(second.body).toMatchObject({ count: 12, page: 2, pageSize: 2 });
      const ids = [...first.body.data, ...second.body.data].map((u: any) => u.id);
      expect(new Set(ids).size).toBe(12);
      // Default order: id, descending.
      expect(ids).toEqual([...ids].sort().reverse());
      expect((await list('GET', `${IAM}/users?page=5`)).body).toMatchObject({ data: [], count: 12, pageSize: 0 });
    });

    it('sorts by a field in either order, filters by email (part of it) and path (all of it)', async () => {
      const ascending = await list('GET', `${IAM}/users?sort=username&sortOrder=asc&email=corp.com`);
      expect(ascending.body.data.map((u: any) => u.username)).toEqual(['alice', 'bob', 'carol', 'dave']);
      expect(ascending.body.count).toBe(4);
      const descending = await list('GET', `${IAM}/users?sort=username&email=CORP.com&pageSize=2`);
      expect(descending.body).toMatchObject({ count: 4, page: 1, pageSize: 2 });
      expect(descending.body.data.map((u: any) => u.username)).toEqual(['dave', 'carol']);
      const ops = await list('GET', `${IAM}/users?path=ops&sort=username&sortOrder=asc`);
      expect(ops.body.data.map((u: any) => u.username)).toEqual(['alice', 'bob']);
      expect((await list('GET', `${IAM}/users?path=op`)).body.count).toBe(0);
    });

    it('400 without a body for a bad page, pageSize, sort or sortOrder', async () => {
      for (const query of ['page=0', 'pageSize=0', 'page=x', 'sort=password', 'sort=passwordHash', 'sortOrder=up']) {
        expectBare(await list('GET', `${IAM}/users?${query}`), 400, /Query parameter/);
      }
    });

    it('lists the distinct paths', async () => {
      expect((await list('GET', `${IAM}/users/paths`)).body).toEqual({ data: ['dev', 'ops'] });
    });
  });

  it('deletes users all or none: 404 naming an unknown id, 400 without ids', async () => {
    const a = (await call('POST', `${IAM}/users`, { body: newUser() })).body.data;
    const b = (await call('POST', `${IAM}/users`, { body: newUser() })).body.data;
    const unknown = await call('POST', `${IAM}/users/delete`, { body: { userIDs: [a.id, 'nope'] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/nope/);
    expectBare(await call('POST', `${IAM}/users/delete`, { body: { userIDs: [] } }), 400);
    expectBare(await call('POST', `${IAM}/users/delete`, { body: {} }), 400, /userIDs is required/);
    const deleted = await call('POST', `${IAM}/users/delete`, { body: { userIDs: [a.id, b.id] } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const left = (await call('GET', `${IAM}/users?pageSize=1000`)).body.data.map((u: any) => u.id);
    expect(left).not.toContain(a.id);
    expect(left).not.toContain(b.id);
    // The username is free again.
    expect(
      (await call('POST', `${IAM}/users`, { body: newUser({ username: a.username, email: a.email }) })).status,
    ).toBe(201);
  });
});

describe('identity and access manager: policies, attachment, resource policies, groups', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const policy = async (name: string, actions = ['endpoint:read']) =>
    (await call('POST', `${IAM}/policies`, { body: { name, statements: [{ effect: 'allow', actions }] } })).body.data;
  const user = async (fields: Record<string, unknown> = {}) =>
    (await call('POST', `${IAM}/users`, { body: newUser(fields) })).body.data;

  it('creates identity policies (an emulator addition), lists and reads them; 409 for a taken name', async () => {
    const created = await call('POST', `${IAM}/policies`, {
      body: {
        name: 'readers',
        description: 'read only',
        statements: [{ effect: 'allow', actions: ['endpoint:read', 'application:*'] }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      krn: 'krn:iam:acme::policy/readers',
      name: 'readers',
      description: 'read only',
      type: 'identity',
      origin: 'tenant',
      version: '1',
      statements: [{ effect: 'allow', actions: ['endpoint:read', 'application:*'], resources: ['*'] }],
    });
    expect((await call('GET', `${IAM}/policies`)).body).toMatchObject({
      count: 1,
      page: 1,
      pageSize: 1,
      data: [created.body.data],
    });
    expect((await call('GET', `${IAM}/policies/${created.body.data.id}`)).body).toEqual({ data: created.body.data });
    expect((await call('GET', `${IAM}/policies/nope`)).status).toBe(404);
    expect(
      (
        await call('POST', `${IAM}/policies`, {
          body: { name: 'readers', statements: [{ effect: 'allow', actions: ['x'] }] },
        })
      ).status,
    ).toBe(409);
    for (const body of [
      { name: 'bad name', statements: [{ effect: 'allow', actions: ['x'] }] },
      { name: 'x', statements: [] },
      { name: 'x', statements: [{ effect: 'maybe', actions: ['x'] }] },
    ]) {
      expectBare(await call('POST', `${IAM}/policies`, { body }), 400);
    }
  });

  it('attaches and detaches policies (twice is once); 400 for an unknown policy, 404 for an unknown user', async () => {
    const [p1, p2] = [await policy('p-one'), await policy('p-two')];
    const u = await user({ policyIDs: [p1.id] });
    expect(u.policyIDs).toEqual([p1.id]);
    const attached = await call('POST', `${IAM}/users/${u.id}/policies/attach`, {
      body: { policyIDs: [p2.id, p1.id] },
    });
    expect(attached.status).toBe(204);
    const listed = async () =>
      (await call('GET', `${IAM}/users?pageSize=1000`)).body.data.find((x: any) => x.id === u.id);
    expect((await listed()).policyIDs).toEqual([p1.id, p2.id]);
    expect(
      (await call('POST', `${IAM}/users/${u.id}/policies/detach`, { body: { policyIDs: [p1.id, 'never-attached'] } }))
        .status,
    ).toBe(204);
    expect((await listed()).policyIDs).toEqual([p2.id]);
    expectBare(
      await call('POST', `${IAM}/users/${u.id}/policies/attach`, { body: { policyIDs: ['nope'] } }),
      400,
      /no policy nope/,
    );
    expectBare(await call('POST', `${IAM}/users/${u.id}/policies/attach`, { body: {} }), 400);
    expect((await call('POST', `${IAM}/users/nope/policies/attach`, { body: { policyIDs: [p1.id] } })).status).toBe(
      404,
    );
    expect((await listed()).policyIDs).toEqual([p2.id]);
  });

  it("reads and replaces a user's resource policy", async () => {
    const u = await user();
    const empty = await call('GET', `${IAM}/users/${u.id}/policy`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ type: 'resource', version: '0', statements: [] });
    const statements = [
      {
        actions: ['iam:user:read'],
        principals: ['krn:iam:acme::user/admin'],
        effect: 'allow',
        description: 'admins read',
      },
    ];
    const put = await call('PUT', `${IAM}/users/${u.id}/policy`, { body: { statements } });
    expect(put.status).toBe(204);
    const read = (await call('GET', `${IAM}/users/${u.id}/policy`)).body.data;
    expect(read).toMatchObject({ type: 'resource', version: '1', krn: `krn:iam:acme::policy/user/${u.id}` });
    expect(read.statements).toEqual([{ ...statements[0], resources: [u.krn] }]);
    expectBare(
      await call('PUT', `${IAM}/users/${u.id}/policy`, { body: { statements: [{ actions: ['x'], effect: 'allow' }] } }),
      400,
      /principals is required/,
    );
    expect((await call('GET', `${IAM}/users/nope/policy`)).status).toBe(404);
    expect((await call('PUT', `${IAM}/users/nope/policy`, { body: { statements } })).status).toBe(404);
  });

  it(
    'creates groups with members and policies, nested by parentID; lists them; 400 and 409 as ' + 'documented',
    async () => {
      const p = await policy('group-policy');
      const member = await user();
      const top = await call('POST', `${IAM}/groups`, {
        body: { name: 'engineering', displayName: 'Engineering', users: [member.id], policyIDs: [p.id] },
      });
      expect(top.status).toBe(201);
      expect(top.body.data).toEqual({
        id: expect.any(String),
        tenantID: 'acme',
        name: 'engineering',
        displayName: 'Engineering',
        path: '/engineering',
        krn: 'krn:iam:acme::group/engineering',
        policyIDs: [p.id],
        created: expect.any(String),
        updated: expect.any(String),
      });
      const child = (await call('POST', `${IAM}/groups`, { body: { name: 'firmware', parentID: top.body.data.id } }))
        .body.data;
      expect(child).toMatchObject({
        path: '/engineering/firmware',
        krn: 'krn:iam:acme::group/engineering/firmware',
        parentID: top.body.data.id,
        displayName: 'firmware',
      });
      const listedMember = (await call('GET', `${IAM}/users?pageSize=1000`)).body.data.find(
        (x: any) => x.id === member.id,
      );
      expect(listedMember).toMatchObject({ groups: [top.body.data.id], defaultGroup: 'engineering' });
      expect((await call('POST', `${IAM}/groups`, { body: { name: 'engineering' } })).status).toBe(409);
      expect((await call('POST', `${IAM}/groups`, { body: { name: 'firmware' } })).status).toBe(201);
      expectBare(await call('POST', `${IAM}/groups`, { body: { name: 'x', parentID: 'nope' } }), 400, /no group nope/);
      expectBare(await call('POST', `${IAM}/groups`, { body: { name: 'y', users: ['nope'] } }), 400, /no user nope/);
      expectBare(await call('POST', `${IAM}/groups`, { body: { name: 'a b' } }), 400);
      const groups = await call('GET', `${IAM}/groups?sort=path&sortOrder=asc`);
      expect(groups.body).toMatchObject({ count: 3, page: 1, pageSize: 3 });
      expect(groups.body.data.map((g: any) => g.path)).toEqual(['/engineering', '/engineering/firmware', '/firmware']);
      expect(
        (await call('GET', `${IAM}/groups?pageSize=1&page=2&sort=path&sortOrder=asc`)).body.data.map(
          (g: any) => g.path,
        ),
      ).toEqual(['/engineering/firmware']);
    },
  );
});

describe('identity and access manager with auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);
  const acme = await tokenFor(emulator);
  const globex = await tokenFor(emulator, { tenant: 'globex' });

  it('401 and 403 have no body', async () => {
    expectBare(await call('GET', `${IAM}/users`), 401, /Authorization: Bearer/);
    expectBare(await call('GET', `${IAM}/users`, { token: 'garbage' }), 401);
    const other = await tokenFor(emulator, { scopes: ['endpoint:read'] });
    expectBare(await call('POST', `${IAM}/users`, { token: other, body: newUser() }), 403, /iam:user:create/);
    expectBare(
      await call('PUT', `${IAM}/users/x/policy`, {
        token: await tokenFor(emulator, { scopes: ['iam:user:policy:read'] }),
        body: { statements: [] },
      }),
      403,
      /iam:group:policy:update/,
    );
  });

  it("a tenant's users, groups and policies are its own", async () => {
    const u = (await call('POST', `${IAM}/users`, { token: acme, body: newUser({ path: 'acme-only' }) })).body.data;
    const p = (
      await call('POST', `${IAM}/policies`, {
        token: acme,
        body: { name: 'acme-policy', statements: [{ effect: 'allow', actions: ['*'] }] },
      })
    ).body.data;
    await call('POST', `${IAM}/groups`, { token: acme, body: { name: 'acme-group' } });
    expect((await call('GET', `${IAM}/users`, { token: globex })).body.count).toBe(0);
    expect((await call('GET', `${IAM}/users/paths`, { token: globex })).body.data).toEqual([]);
    expect((await call('GET', `${IAM}/groups`, { token: globex })).body.count).toBe(0);
    expect((await call('GET', `${IAM}/policies`, { token: globex })).body.count).toBe(0);
    expect((await call('GET', `${IAM}/users/${u.id}/policy`, { token: globex })).status).toBe(404);
    expect(
      (await call('POST', `${IAM}/users/${u.id}/policies/attach`, { token: globex, body: { policyIDs: [] } })).status,
    ).toBe(404);
    expect((await call('POST', `${IAM}/users/delete`, { token: globex, body: { userIDs: [u.id] } })).status).toBe(404);
    const foreignPolicy = await call('POST', `${IAM}/users`, { token: globex, body: newUser({ policyIDs: [p.id] }) });
    expectBare(foreignPolicy, 400, /no policy/);
    // The same username is free in another tenant.
    expect(
      (await call('POST', `${IAM}/users`, { token: globex, body: newUser({ username: u.username }) })).status,
    ).toBe(201);
    expect((await call('GET', `${IAM}/users`, { token: acme })).body.data.map((x: any) => x.id)).toContain(u.id);
  });
});

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
