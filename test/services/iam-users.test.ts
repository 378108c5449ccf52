import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { expectBare, IAM, newUser } from '../helpers/iam.js';

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
