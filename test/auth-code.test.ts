import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from './helpers/emulator.js';

const realm = '/auth/realms/acme/protocol/openid-connect';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('the authorization code flow with PKCE', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);
  const redirectUri = 'http://127.0.0.1:5173/callback';

  const authorize = (challenge: string, extra: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: 'acme-frontend',
    redirect_uri: redirectUri,
    state: 'xyz',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });

  /** Signs in on the login form and returns the code from the redirect. */
  async function signIn(challenge: string, username: string, password: string): Promise<Response> {
    return fetch(`${emulator.url}${realm}/auth`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ ...authorize(challenge), username, password }),
    });
  }

  const exchange = (fields: Record<string, string>) =>
    call('POST', `${realm}/token`, {
      rawBody: form({
        grant_type: 'authorization_code',
        client_id: 'acme-frontend',
        redirect_uri: redirectUri,
        ...fields,
      }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

  it('announces the authorization endpoint and S256 in discovery', async () => {
    const discovery = (await call('GET', '/auth/realms/acme/.well-known/openid-configuration')).body;
    expect(discovery).toMatchObject({
      authorization_endpoint: `${emulator.url}${realm}/auth`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: expect.arrayContaining(['authorization_code']),
    });
  });

  it(
    "shows a login form, redirects with a code and the state, and exchanges it once for the user's " + 'token',
    async () => {
      const { verifier, challenge } = pkce();
      const page = await fetch(`${emulator.url}${realm}/auth?${form(authorize(challenge))}`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<label for="username">');
      expect(html).toContain(`value="${challenge}"`);

      const wrong = await signIn(challenge, 'viewer@acme.test', 'nope');
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).toContain('role="alert"');

      const redirect = await signIn(challenge, 'viewer@acme.test', 'viewer-password');
      expect(redirect.status).toBe(302);
      const location = new URL(redirect.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(redirectUri);
      expect(location.searchParams.get('state')).toBe('xyz');
      const code = location.searchParams.get('code')!;

      expect((await exchange({ code, code_verifier: pkce().verifier })).body.error_description).toMatch(
        /does not match/,
      );
      // A failed exchange used the code up: a stolen code gets one try.
      expect((await exchange({ code, code_verifier: verifier })).status).toBe(400);

      const again = new URL(
        (await signIn(challenge, 'viewer@acme.test', 'viewer-password')).headers.get('location')!,
      ).searchParams.get('code')!;
      const granted = await exchange({ code: again, code_verifier: verifier });
      expect(granted.status).toBe(200);
      expect(granted.body.scope.split(' ').sort()).toEqual(['application:read', 'endpoint:read']);
      expect((await call('GET', '/epr/api/v1/endpoints', { token: granted.body.access_token })).status).toBe(200);
      expect(
        (
          await call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', {
            token: granted.body.access_token,
            body: {},
          })
        ).status,
      ).toBe(404);
      expect((await exchange({ code: again, code_verifier: verifier })).body.error).toBe('invalid_grant');
    },
  );

  it(
    'refuses authorization requests with plain or malformed PKCE, an unknown client, a bad redirect_uri or ' +
      'response_mode',
    async () => {
      const { challenge } = pkce();
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ code_challenge_method: 'plain' }, /S256/],
        [{ code_challenge: 'short' }, /code_challenge/],
        [{ client_id: 'nobody' }, /Unknown client_id/],
        [{ redirect_uri: 'javascript:alert(1)' }, /redirect_uri/],
        [{ redirect_uri: 'https://attacker.example/collect' }, /redirect_uri must be on this machine/],
        [{ response_type: 'token' }, /response_type/],
        [{ response_mode: 'form_post' }, /response_mode must be query or fragment/],
      ];
      for (const [extra, message] of cases) {
        const response = await call('GET', `${realm}/auth?${form(authorize(challenge, extra))}`);
        expect(response.status, JSON.stringify(extra)).toBe(400);
        expect(response.body.message).toMatch(message);
      }
    },
  );

  it('refuses a code exchanged with another redirect_uri or after its minute', async () => {
    const { verifier, challenge } = pkce();
    const code = () =>
      signIn(challenge, 'dev@acme.test', 'dev-password').then((r) =>
        new URL(r.headers.get('location')!).searchParams.get('code')!,
      );
    expect(
      (await exchange({ code: await code(), code_verifier: verifier, redirect_uri: 'http://127.0.0.1:5173/other' }))
        .body.error_description,
    ).toMatch(/redirect_uri/);
    const late = await code();
    await call('PUT', '/_emu/clock', { token: emulator.adminToken, body: { advance: '61s' } });
    expect((await exchange({ code: late, code_verifier: verifier })).body.error_description).toMatch(/expired/);
    await call('PUT', '/_emu/clock', { token: emulator.adminToken, body: { real: true } });
  });
});
