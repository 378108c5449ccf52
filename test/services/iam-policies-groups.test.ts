import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { expectBare, IAM, newUser } from '../helpers/iam.js';

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
