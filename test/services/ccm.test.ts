import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PERMITTED_MOVES, type CredentialState } from '../../src/services/ccm/basic-credentials.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const CCM = '/ccm/api/v1';
const pem = (name: string) => readFileSync(new URL(`../fixtures-data/${name}`, import.meta.url), 'utf8');

describe('credentials manager: basic credentials', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const create = (body: unknown = {}) => call('POST', `${CCM}/basic-credentials`, { body });
  const stateOf = async (id: string) =>
    (await call('GET', `${CCM}/basic-credentials/${id}`)).body.state as CredentialState;

  it('generates both username and password for {}, answers the password once, and lists without it', async () => {
    const created = await create({});
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      username: expect.stringMatching(/^[a-z0-9]{12}$/),
      password: expect.stringMatching(/^[A-Za-z0-9]{24}$/),
      state: 'Inactive',
      createdDate: expect.any(String),
      updatedDate: expect.any(String),
    });
    expect(created.headers.get('location')).toBe(`${emulator.url}${CCM}/basic-credentials/${created.body.id}`);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const list = await call('GET', `${CCM}/basic-credentials`);
    expect(list.status).toBe(200);
    const listed = list.body.find((c: any) => c.id === created.body.id);
    expect(listed).toEqual({
      id: created.body.id,
      username: created.body.username,
      state: 'Inactive',
      createdDate: created.body.createdDate,
      updatedDate: created.body.updatedDate,
    });
    expect(list.text).not.toContain(created.body.password);
    expect(list.text).not.toMatch(/password/i);
    const one = await call('GET', created.headers.get('location')!.replace(emulator.url, ''));
    expect(one.body).toEqual(listed);
    // A second generated username differs: they come from a space of 31^12.
    expect((await create()).body.username).not.toBe(created.body.username);
  });

  it('takes a given username and password at their limits; 409 for a taken username', async () => {
    const username = 'u'.repeat(255);
    const password = `${'p'.repeat(70)} ~`;
    const created = await create({ username, password });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username, password, state: 'Inactive' });
    const onlyPassword = await create({ password: 'given-password' });
    expect(onlyPassword.body).toMatchObject({
      password: 'given-password',
      username: expect.stringMatching(/^[a-z0-9]{12}$/),
    });
    const taken = await create({ username });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toMatch(/already registered/);
  });

  it.each([
    [
      'a username with ":"',
      { username: 'a:b' },
      /username must be printable ASCII without spaces, ":" or "@"; it holds ":"/,
    ],
    ['a username with "@"', { username: 'dev@acme' }, /it holds "@"/],
    ['a username with a space', { username: 'a b' }, /it holds " "/],
    ['a username that is not ASCII', { username: 'gerät' }, /it holds "ä"/],
    ['a username of 256 characters', { username: 'u'.repeat(256) }, /username must NOT have more than 255 characters/],
    ['an empty username', { username: '' }, /username must NOT have fewer than 1 characters/],
    ['a password of 73 characters', { password: 'p'.repeat(73) }, /password must NOT have more than 72 characters/],
    ['a password that is not ASCII', { password: 'pässword' }, /password must be printable ASCII/],
    ['a username that is not a string', { username: 42 }, /username must be a string/],
    ['a body that is not an object', [], /the body must be a JSON object/],
  ])('400 for %s, and nothing is created', async (_name, body, message) => {
    const before = (await call('GET', `${CCM}/basic-credentials`)).body.length;
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await call('GET', `${CCM}/basic-credentials`)).body).toHaveLength(before);
  });

  it('400 for malformed JSON', async () => {
    const response = await call('POST', `${CCM}/basic-credentials`, {
      rawBody: '{"username":',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/not valid JSON/);
  });

  /** A new credential brought to `state` by permitted moves. */
  async function credentialIn(state: CredentialState): Promise<string> {
    const { id } = (await create()).body;
    if (state !== 'Inactive')
      expect((await call('PATCH', `${CCM}/basic-credentials/${id}/state`, { body: { state } })).status).toBe(204);
    return id;
  }

  const FROM: CredentialState[] = ['Inactive', 'Active', 'Suspended', 'Revoked'];
  const TO = ['Active', 'Suspended', 'Revoked'] as const;
  for (const from of FROM) {
    it(`moves from ${from} exactly as the documented table permits`, async () => {
      for (const to of TO) {
        const id = await credentialIn(from);
        const moved = await call('PATCH', `${CCM}/basic-credentials/${id}/state`, { body: { state: to } });
        const permitted = from === to || PERMITTED_MOVES[from].includes(to);
        expect(moved.status, `${from} -> ${to}`).toBe(permitted ? 204 : 400);
        if (!permitted) expect(moved.body.message).toMatch(new RegExp(`in state ${from} cannot move to ${to}`));
        expect(await stateOf(id)).toBe(permitted ? to : from);
      }
    });
  }

  it('the table itself: Revoked is final, Inactive is never a target', () => {
    expect(PERMITTED_MOVES).toEqual({
      Inactive: ['Active', 'Suspended', 'Revoked'],
      Active: ['Suspended', 'Revoked'],
      Suspended: ['Active', 'Revoked'],
      Revoked: [],
    });
  });

  it('a state change: 400 for Inactive or a bad body, 404 for an unknown id; updatedDate moves', async () => {
    const id = await credentialIn('Inactive');
    const before = (await call('GET', `${CCM}/basic-credentials/${id}`)).body.updatedDate;
    for (const body of [{ state: 'Inactive' }, { state: 'active' }, {}, { state: 1 }]) {
      const response = await call('PATCH', `${CCM}/basic-credentials/${id}/state`, { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.message).toMatch(/state/);
    }
    expect((await call('PATCH', `${CCM}/basic-credentials/nope/state`, { body: { state: 'Active' } })).status).toBe(
      404,
    );
    await call('PATCH', `${CCM}/basic-credentials/${id}/state`, { body: { state: 'Suspended' } });
    expect((await call('GET', `${CCM}/basic-credentials/${id}`)).body.updatedDate >= before).toBe(true);
  });

  it(
    'changes a password (given, or generated) and answers it once; 400 beyond 72 or when Revoked; 404 ' + 'unknown',
    async () => {
      const id = await credentialIn('Active');
      const given = await call('PATCH', `${CCM}/basic-credentials/${id}/password`, {
        body: { password: 'new password' },
      });
      expect(given.status).toBe(200);
      expect(given.body).toEqual({ password: 'new password' });
      const generated = await call('PATCH', `${CCM}/basic-credentials/${id}/password`, { body: {} });
      expect(generated.body.password).toMatch(/^[A-Za-z0-9]{24}$/);
      const empty = await call('PATCH', `${CCM}/basic-credentials/${id}/password`);
      expect(empty.status).toBe(200);
      expect(empty.body.password).toMatch(/^[A-Za-z0-9]{24}$/);
      expect(
        (await call('PATCH', `${CCM}/basic-credentials/${id}/password`, { body: { password: 'p'.repeat(73) } })).status,
      ).toBe(400);
      expect((await call('PATCH', `${CCM}/basic-credentials/nope/password`, { body: {} })).status).toBe(404);
      const revoked = await credentialIn('Revoked');
      const refused = await call('PATCH', `${CCM}/basic-credentials/${revoked}/password`, { body: {} });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/revoked/);
    },
  );
});

describe('credentials manager: X.509 credentials', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const X509 = `${CCM}/x509-credentials`;

  it('registers a certificate given as JSON, with the spec fields read from it', async () => {
    const created = await call('POST', X509, { body: { certificate: pem('x509-device-001.pem') } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      state: 'Inactive',
      serialNumber: '81985529216486895',
      commonName: 'device-001',
      invalidAfter: '2036-11-20T15:11:18.000Z',
      createdDate: expect.any(String),
      updatedDate: expect.any(String),
    });
    expect(created.headers.get('location')).toBe(`${emulator.url}${X509}/${created.body.id}`);
    expect((await call('GET', X509)).body).toEqual([created.body]);
    expect((await call('GET', `${X509}/${created.body.id}`)).body).toEqual(created.body);
  });

  it('registers a raw PEM body (Content-Type: application/x-pem-file); 409 for one registered already', async () => {
    const raw = await call('POST', X509, {
      rawBody: pem('x509-device-002.pem'),
      headers: { 'content-type': 'application/x-pem-file' },
    });
    expect(raw.status).toBe(201);
    expect(raw.body).toMatchObject({ serialNumber: '7', commonName: 'device-002' });
    const again = await call('POST', X509, { body: { certificate: pem('x509-device-002.pem') } });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already registered/);
  });

  it.each([
    ['text that is not a certificate', { body: { certificate: 'hello' } }, /PEM block/],
    [
      'a damaged certificate',
      { body: { certificate: pem('x509-device-001.pem').replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAAAAAAAAAAAAAAAAAA') } },
      /cannot be read/,
    ],
    ['a certificate without CN', { body: { certificate: pem('x509-without-cn.pem') } }, /no CN/],
    ['no certificate field', { body: { pem: 'x' } }, /certificate is required/],
    ['a certificate that is not a string', { body: { certificate: 1 } }, /certificate must be a string/],
    [
      'malformed JSON',
      { rawBody: '{"certificate":', headers: { 'content-type': 'application/json' } },
      /not valid JSON/,
    ],
    ['no body', {}, /body is missing/],
    [
      'a PEM body that is not a certificate',
      { rawBody: 'hello', headers: { 'content-type': 'application/x-pem-file' } },
      /PEM block/,
    ],
  ])('400 for %s', async (_name, options, message) => {
    const before = (await call('GET', X509)).body.length;
    const response = await call('POST', X509, options);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await call('GET', X509)).body).toHaveLength(before);
  });
});

describe('credentials manager with auth on: scopes and tenants', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);
  const acme = await tokenFor(emulator);
  const globex = await tokenFor(emulator, { tenant: 'globex' });

  it('401 without a token, 403 without the scope', async () => {
    expect((await call('GET', `${CCM}/basic-credentials`)).status).toBe(401);
    const readOnly = await tokenFor(emulator, { scopes: ['tenant:basic-credentials:read'] });
    expect((await call('GET', `${CCM}/basic-credentials`, { token: readOnly })).status).toBe(200);
    const denied = await call('POST', `${CCM}/basic-credentials`, { token: readOnly, body: {} });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/tenant:basic-credentials:create/);
    expect((await call('POST', `${CCM}/x509-credentials`, { token: readOnly, body: {} })).status).toBe(403);
  });

  it(
    'a tenant sees and changes only its own credentials; usernames are unique within a tenant (spec 3: ' +
      '"tenant-wide unique")',
    async () => {
      const mine = await call('POST', `${CCM}/basic-credentials`, { token: acme, body: { username: 'acme-device' } });
      expect(mine.status).toBe(201);
      expect(
        (await call('GET', `${CCM}/basic-credentials`, { token: globex })).body.map((c: any) => c.id),
      ).not.toContain(mine.body.id);
      expect((await call('GET', `${CCM}/basic-credentials/${mine.body.id}`, { token: globex })).status).toBe(404);
      expect(
        (
          await call('PATCH', `${CCM}/basic-credentials/${mine.body.id}/state`, {
            token: globex,
            body: { state: 'Revoked' },
          })
        ).status,
      ).toBe(404);
      expect(
        (await call('PATCH', `${CCM}/basic-credentials/${mine.body.id}/password`, { token: globex, body: {} })).status,
      ).toBe(404);
      expect((await call('GET', `${CCM}/basic-credentials/${mine.body.id}`, { token: acme })).body.state).toBe(
        'Inactive',
      );
      expect(
        (await call('POST', `${CCM}/basic-credentials`, { token: acme, body: { username: 'acme-device' } })).status,
      ).toBe(409);
      const same = await call('POST', `${CCM}/basic-credentials`, { token: globex, body: { username: 'acme-device' } });
      expect(same.status).toBe(201);
      expect(same.body.id).not.toBe(mine.body.id);
      const cert = await call('POST', `${CCM}/x509-credentials`, {
        token: acme,
        body: { certificate: pem('x509-device-001.pem') },
      });
      expect((await call('GET', `${CCM}/x509-credentials`, { token: globex })).body).toEqual([]);
      expect((await call('GET', `${CCM}/x509-credentials/${cert.body.id}`, { token: globex })).status).toBe(404);
    },
  );
});

describe('no password is readable anywhere', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-ccm-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const emulator = await startTestEmulator({ inMemory: false, dataDir: dir });
  const call = api(emulator);

  it('not in the state export, nor in state.json and the mutation log on disk', async () => {
    const secrets = ['Secret-Device-Password-1', 'Changed-Password-2', 'Iam-User-Password-3'];
    const created = await call('POST', `${CCM}/basic-credentials`, {
      body: { username: 'disk-device', password: secrets[0] },
    });
    await call('PATCH', `${CCM}/basic-credentials/${created.body.id}/password`, { body: { password: secrets[1] } });
    const generated = (await call('POST', `${CCM}/basic-credentials`, { body: {} })).body.password;
    const user = { email: 'disk@acme.com', username: 'disk-user', password: secrets[2], confirmPassword: secrets[2] };
    expect((await call('POST', '/iam/api/v1/users', { body: user })).status).toBe(201);

    const exported = (await call('GET', '/_emu/state')).text;
    const onDisk = () =>
      readdirSync(dir)
        .map((f) => (f.endsWith('.json') || f.endsWith('.jsonl') ? readFileSync(join(dir, f), 'utf8') : ''))
        .join('\n');
    // Fixture users' passwords, too: the realms keep hashes only.
    for (const secret of [...secrets, generated, 'dev-password', 'viewer-password']) {
      expect(exported).not.toContain(secret);
      expect(onDisk()).not.toContain(secret);
    }
    // The hashes themselves are left out of an export unless asked for (docs/state.md).
    expect(exported).not.toMatch(/scrypt\$/);
    expect((await call('GET', '/_emu/state?includeSecrets=true')).text).toMatch(/"passwordHash":"scrypt\$/);
    await emulator.stop();
    for (const secret of [...secrets, generated]) expect(onDisk()).not.toContain(secret);
    expect(readFileSync(join(dir, 'state.json'), 'utf8')).toContain('disk-device');
  });
});
