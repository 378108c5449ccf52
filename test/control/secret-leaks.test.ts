import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { openStream } from '../helpers/event-stream.js';

describe('the journal and the event stream redact every secret-like query parameter', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('code, passwd, pass, pwd and names with secret, token or password in them', async () => {
    const stream = await openStream(emulator.url);
    const query =
      'code=auth-code-1&state=kept-state&passwd=pw-2&pass=pw-3&pwd=pw-4&api_secret=s-5&refresh_token=t-6' +
      '&id_token_hint=t-7' +
      '&new_password=pw-8&code_verifier=v-9&Pass%77ord=pw-10&limit=5';
    await call('GET', `/_emu/ui/?${query}`);
    const journaled = (await call('GET', '/_emu/requests?path=/_emu/ui')).body.at(-1);
    const streamed = (await stream.next((e) => e.event === 'request' && String(e.data.path).startsWith('/_emu/ui/?')))
      .data;
    await stream.close();
    for (const entry of [journaled, streamed]) {
      for (const secret of ['auth-code-1', 'pw-2', 'pw-3', 'pw-4', 's-5', 't-6', 't-7', 'pw-8', 'v-9', 'pw-10'])
        expect(entry.path).not.toContain(secret);
      expect(entry.path).toContain('code=<redacted>');
      expect(entry.path).toContain('state=kept-state');
      expect(entry.path).toContain('limit=5');
    }
  });
});

describe('exports leave out live upload tokens and password hashes unless includeSecrets=true', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('upload tokens are not exported; password hashes are <redacted>; includeSecrets=true shows both', async () => {
    const issued = await call('POST', '/kp1/smart-meter-v1/bcx/meter-001-token/token');
    expect(issued.status, issued.text).toBe(200);
    const uploadToken = issued.body.token as string;
    const redacted = (await call('GET', '/_emu/state')).body;
    const text = JSON.stringify(redacted);
    expect(text).not.toContain(uploadToken);
    expect(text).not.toMatch(/scrypt\$/);
    expect(redacted.collections['upload-tokens'] ?? {}).toEqual({});
    for (const name of ['basic-credentials', 'realm-users']) {
      const records = Object.values(redacted.collections[name] ?? {}) as Array<{ passwordHash: string }>;
      expect(records.length, name).toBeGreaterThan(0);
      for (const record of records) expect(record.passwordHash, name).toBe('<redacted>');
    }

    const clear = JSON.stringify((await call('GET', '/_emu/state?includeSecrets=true')).body);
    expect(clear).toContain(uploadToken);
    expect(clear).toMatch(/scrypt\$/);
  });

  it('a redacted export imports again: hashes kept, so the users still sign in', async () => {
    const redacted = (await call('GET', '/_emu/state')).body;
    expect((await call('PUT', '/_emu/state', { body: redacted })).status).toBe(204);
    const grant = await fetch(`${emulator.url}/auth/realms/acme/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'acme-backend',
        client_secret: 'acme-backend-secret',
        username: 'dev@acme.test',
        password: 'dev-password',
      }),
    });
    expect(grant.status).toBe(200);
  });
});
