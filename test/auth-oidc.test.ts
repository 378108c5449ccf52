import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES } from '../src/config.js';
import { api, startTestEmulator } from './helpers/emulator.js';

const OIDC = '/auth/realms/acme/protocol/openid-connect';
const APP = 'http://localhost:5173/app';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A fixture file like the default one whose acme realm has one more client, configured to require PKCE. */
async function fixturesWithPkceClient(): Promise<string> {
  const fixtures = JSON.parse(await readFile(DEFAULT_FIXTURES, 'utf8'));
  fixtures.tenants[0].clients.push({
    clientId: 'acme-strict',
    secret: 'acme-strict-secret',
    scopes: 'all',
    requirePkce: true,
  });
  const file = join(await mkdtemp(join(tmpdir(), 'platform-emu-oidc-')), 'fixtures.json');
  await writeFile(file, JSON.stringify(fixtures));
  return file;
}

describe('OpenID Connect sign-in for single-page apps', async () => {
  const emulator = await startTestEmulator({ auth: 'on', fixtures: await fixturesWithPkceClient() });
  const call = api(emulator);
  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    call('POST', path, {
      rawBody: form(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });

  const authorizeParams = (extra: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: 'acme-frontend',
    redirect_uri: APP,
    state: 's1',
    scope: 'openid',
    ...extra,
  });

  /** The login form's POST; returns the redirect and the browser's cookies. */
  async function signIn(extra: Record<string, string> = {}, user = 'dev@acme.test', password = 'dev-password') {
    const response = await fetch(`${emulator.url}${OIDC}/auth`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: emulator.url },
      body: form({ ...authorizeParams(extra), username: user, password }),
    });
    expect(response.status).toBe(302);
    const cookies = response.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    return { location: new URL(response.headers.get('location')!), cookies };
  }
  const answerOf = (location: URL) =>
    location.hash ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
  const exchange = (code: string, extra: Record<string, string> = {}) =>
    post(
      `${OIDC}/token`,
      { grant_type: 'authorization_code', client_id: 'acme-frontend', redirect_uri: APP, code, ...extra },
      { origin: 'http://localhost:5173' },
    );

  it('lists the endpoints a client library looks for in discovery', async () => {
    const discovery = (await call('GET', '/auth/realms/acme/.well-known/openid-configuration')).body;
    for (const name of ['authorization', 'token', 'userinfo', 'end_session'])
      expect(discovery[`${name}_endpoint`]).toMatch(new RegExp(`^${emulator.url}${OIDC}/`));
    expect(discovery.check_session_iframe).toBe(`${emulator.url}${OIDC}/login-status-iframe.html`);
    expect(discovery.response_modes_supported).toEqual(['query', 'fragment']);
    expect(discovery.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  });

  it(
    "signs a public client in without PKCE, fragment mode, nonce in the id_token, the user's platform scopes " +
      'with openid',
    async () => {
      const { location } = await signIn({ response_mode: 'fragment', nonce: 'n-123' });
      expect(location.origin + location.pathname).toBe(APP);
      expect(location.search).toBe('');
      const answer = answerOf(location);
      expect(answer.get('state')).toBe('s1');
      expect(answer.get('session_state')).toBeTruthy();
      const granted = await exchange(answer.get('code')!);
      expect(granted.status).toBe(200);
      expect(granted.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      const { access_token, id_token, refresh_token, session_state } = granted.body;
      expect(claimsOf(id_token)).toMatchObject({
        nonce: 'n-123',
        aud: 'acme-frontend',
        sid: session_state,
        preferred_username: 'dev@acme.test',
        typ: 'ID',
      });
      expect(claimsOf(refresh_token).typ).toBe('Refresh');
      const scopes = claimsOf(access_token).scope.split(' ');
      expect(scopes).toEqual(
        expect.arrayContaining(['openid', 'endpoint:read', 'endpoint:update', 'application:read']),
      );
      expect((await call('GET', '/epr/api/v1/endpoints', { token: access_token })).status).toBe(200);
      // Neither the ID token nor the refresh token opens an operation.
      expect((await call('GET', '/epr/api/v1/endpoints', { token: id_token })).status).toBe(401);
      expect((await call('GET', '/epr/api/v1/endpoints', { token: refresh_token })).status).toBe(401);
    },
  );

  it(
    'gives scope=openid the full platform scopes on the password grant too, and still narrows to named ' + 'ones',
    async () => {
      const open = await post(`${OIDC}/token`, {
        grant_type: 'password',
        client_id: 'acme-frontend',
        username: 'viewer@acme.test',
        password: 'viewer-password',
        scope: 'openid profile email',
      });
      expect(open.body.scope.split(' ').sort()).toEqual([
        'application:read',
        'email',
        'endpoint:read',
        'openid',
        'profile',
      ]);
      const narrowed = await post(`${OIDC}/token`, {
        grant_type: 'password',
        client_id: 'acme-frontend',
        username: 'viewer@acme.test',
        password: 'viewer-password',
        scope: 'openid endpoint:read',
      });
      expect(narrowed.body.scope).toBe('endpoint:read openid');
    },
  );

  it('answers in the query by default, and enforces PKCE when the client sent a challenge', async () => {
    const { verifier, challenge } = pkce();
    const { location } = await signIn({ code_challenge: challenge, code_challenge_method: 'S256' });
    expect(location.hash).toBe('');
    const code = location.searchParams.get('code')!;
    const missing = await exchange(code);
    expect(missing.body.error_description).toMatch(/code_verifier is required/);
    const again = (
      await signIn({ code_challenge: challenge, code_challenge_method: 'S256' })
    ).location.searchParams.get('code')!;
    expect((await exchange(again, { code_verifier: verifier })).status).toBe(200);
  });

  it('refuses a code request without PKCE from a client configured to require it', async () => {
    const page = await call('GET', `${OIDC}/auth?${form(authorizeParams({ client_id: 'acme-strict' }))}`);
    expect(page.status).toBe(400);
    expect(page.body.error_description).toMatch(/acme-strict requires PKCE/);
    expect(
      (
        await call(
          'GET',
          `${OIDC}/auth?` +
            form(
              authorizeParams({
                client_id: 'acme-strict',
                ...{ code_challenge: pkce().challenge, code_challenge_method: 'S256' },
              }),
            ),
        )
      ).status,
    ).toBe(200);
  });

  it(
    'signs the browser in again without the form (SSO), and prompt=none without a session is ' + 'login_required',
    async () => {
      const { cookies } = await signIn();
      const again = await fetch(`${emulator.url}${OIDC}/auth?${form(authorizeParams({ response_mode: 'fragment' }))}`, {
        redirect: 'manual',
        headers: { cookie: cookies },
      });
      expect(again.status).toBe(302);
      expect(answerOf(new URL(again.headers.get('location')!)).get('code')).toBeTruthy();
      const none = await fetch(`${emulator.url}${OIDC}/auth?${form(authorizeParams({ prompt: 'none' }))}`, {
        redirect: 'manual',
      });
      expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    },
  );

  it('refreshes on the emulator clock, answers userinfo, and ends everything at logout', async () => {
    const { location, cookies } = await signIn({ nonce: 'n-9' });
    const first = (await exchange(location.searchParams.get('code')!)).body;
    const refresh = (token: string) =>
      post(`${OIDC}/token`, { grant_type: 'refresh_token', client_id: 'acme-frontend', refresh_token: token });
    const refreshed = await refresh(first.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.id_token).nonce).toBe('n-9');
    expect(claimsOf(refreshed.body.access_token).sid).toBe(first.session_state);
    expect(
      (
        await post(`${OIDC}/token`, {
          grant_type: 'refresh_token',
          client_id: 'other',
          refresh_token: first.refresh_token,
        })
      ).status,
    ).toBe(400);

    const info = await call('GET', `${OIDC}/userinfo`, { token: refreshed.body.access_token });
    expect(info.body).toMatchObject({ preferred_username: 'dev@acme.test', email: 'dev@acme.test', tenant_id: 'acme' });
    expect((await call('GET', `${OIDC}/userinfo`, { token: first.refresh_token })).status).toBe(401);

    const out = await fetch(
      `${emulator.url}${OIDC}/logout?` +
        `${form({ id_token_hint: first.id_token, post_logout_redirect_uri: 'http://localhost:5173/bye', state: 'z' })}`,
      { redirect: 'manual', headers: { cookie: cookies } },
    );
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('http://localhost:5173/bye?state=z');
    expect(out.headers.getSetCookie().join(' ')).toMatch(/PLATFORM_EMU_SESSION=;/);
    const after = await refresh(refreshed.body.refresh_token);
    expect(after.body.error).toBe('invalid_grant');
    expect(after.body.error_description).toMatch(/ended/);
  });

  it('lets refresh tokens expire on the virtual clock', async () => {
    const { location } = await signIn();
    const { refresh_token } = (await exchange(location.searchParams.get('code')!)).body;
    expect((await call('PUT', '/_emu/clock', { token: emulator.adminToken, body: { advance: '1801s' } })).status).toBe(
      200,
    );
    const expired = await post(`${OIDC}/token`, {
      grant_type: 'refresh_token',
      client_id: 'acme-frontend',
      refresh_token,
    });
    expect(expired.body.error_description).toMatch(/jwt expired/);
  });

  it('serves the login-status iframe, its init check, and the third-party cookie check pages', async () => {
    const iframe = await call('GET', `${OIDC}/login-status-iframe.html?version=1`);
    expect(iframe.headers.get('content-type')).toMatch(/text\/html/);
    expect(iframe.text).toContain("addEventListener('message'");
    expect(
      (
        await call(
          'GET',
          `${OIDC}/login-status-iframe.html/init?` +
            `${form({ client_id: 'acme-frontend', origin: 'http://localhost:5173' })}`,
        )
      ).status,
    ).toBe(204);
    expect(
      (
        await call(
          'GET',
          `${OIDC}/login-status-iframe.html/init?` +
            `${form({ client_id: 'acme-frontend', origin: 'http://evil.example' })}`,
        )
      ).status,
    ).toBe(403);
    expect((await call('GET', `${OIDC}/3p-cookies/step1.html`)).text).toContain('step2.html');
    expect((await call('GET', `${OIDC}/3p-cookies/step2.html`)).text).toContain("'supported'");
  });
});
