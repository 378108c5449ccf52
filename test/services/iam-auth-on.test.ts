import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { expectBare, IAM, newUser } from '../helpers/iam.js';

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
