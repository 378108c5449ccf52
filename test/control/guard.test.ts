import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { afterAll, describe, expect, it } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import { startEmulator } from '../../src/index.js';
import { REQUEST_RECORDED } from '../../src/server/events.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

/** A request with headers fetch() does not let us set (Host), over node:http. */
function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Bytes straight onto the socket, for what node's HTTP parser refuses; resolves with the whole answer. */
function rawSocket(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the control plane with auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);

  it('needs the admin token on every route but health', async () => {
    expect((await call('GET', '/_emu/health')).status).toBe(200);
    for (const [method, path] of [
      ['GET', '/_emu/state'],
      ['PUT', '/_emu/state'],
      ['POST', '/_emu/reset'],
      ['POST', '/_emu/token'],
      ['GET', '/_emu/snapshots'],
      ['PUT', '/_emu/clock'],
      ['POST', '/_emu/faults'],
      ['GET', '/_emu/requests'],
      ['GET', '/_emu/events'],
    ]) {
      const response = await call(method, path, method === 'GET' ? {} : { body: {} });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.body.message).toContain('admin token');
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
    }
    expect((await call('GET', '/_emu/requests', { token: emulator.adminToken })).status).toBe(200);
    expect((await call('POST', '/_emu/token', { token: emulator.adminToken, body: {} })).status).toBe(200);
  });

  it(
    "refuses a tenant's token (403) and a forged one (401); accepts any emulator-signed token with " + 'emulator:admin',
    async () => {
      const tenantToken = emulator.token();
      const denied = await call('GET', '/_emu/state', { token: tenantToken });
      expect(denied.status).toBe(403);
      expect(denied.body.message).toContain('emulator:admin');
      expect((await call('GET', '/_emu/state', { token: 'not.a.jwt' })).status).toBe(401);
      const forged = jwt.sign({ scope: 'emulator:admin' }, 'guessed', { algorithm: 'HS256' });
      expect((await call('GET', '/_emu/state', { token: forged })).status).toBe(401);
      expect((await call('GET', '/_emu/state', { token: emulator.token({ scopes: ['emulator:admin'] }) })).status).toBe(
        200,
      );
    },
  );

  it('the event stream also takes the admin token as access_token (EventSource sends no headers)', async () => {
    const recorded = new Promise((resolve) => internalContext(emulator).events.once(REQUEST_RECORDED, resolve));
    const stream = await fetch(`${emulator.url}/_emu/events?access_token=${encodeURIComponent(emulator.adminToken)}`);
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
    await recorded;
    expect(
      (await fetch(`${emulator.url}/_emu/requests?access_token=${encodeURIComponent(emulator.adminToken)}`)).status,
    ).toBe(401);
    const journal = await call('GET', '/_emu/requests?path=/_emu/events', { token: emulator.adminToken });
    expect(journal.text).not.toContain(emulator.adminToken);
    expect(journal.text).toContain('access_token=<redacted>');
  });

  it('the admin token opens no service operation', async () => {
    expect((await call('GET', '/epr/api/v1/endpoints', { token: emulator.adminToken })).status).toBe(401);
  });

  it('with auth off, the control plane is open', async () => {
    const open = await startTestEmulator();
    expect((await api(open)('GET', '/_emu/state')).status).toBe(200);
  });

  it('a token of a tenant that a reset removed is refused at once (the verification cache is cleared)', async () => {
    const globex = await (async () => {
      const response = await call('POST', '/_emu/token', { token: emulator.adminToken, body: { tenant: 'globex' } });
      return response.body.token as string;
    })();
    expect((await call('GET', '/epr/api/v1/endpoints', { token: globex })).status).toBe(200);
    expect((await call('POST', '/_emu/reset', { token: emulator.adminToken, body: { empty: true } })).status).toBe(204);
    const refused = await call('GET', '/epr/api/v1/endpoints', { token: globex });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain('not a realm');
    await emulator.reset();
  });
});

describe('the admin token in the data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-admin-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is in the lock file, which only its owner can read', async () => {
    const emulator = await startEmulator({ port: 0, mqttPort: 0, dataDir: dir, auth: 'on', log: () => undefined });
    try {
      const lock = join(dir, 'emulator.lock');
      expect(statSync(lock).mode & 0o777).toBe(0o600);
      const info = JSON.parse(readFileSync(lock, 'utf8'));
      expect(info).toMatchObject({ url: emulator.url, adminToken: emulator.adminToken });
      expect((await api(emulator)('GET', '/_emu/state', { token: info.adminToken })).status).toBe(200);
    } finally {
      await emulator.stop();
    }
  });

  it('can be chosen (adminToken, --admin-token)', async () => {
    const emulator = await startTestEmulator({ auth: 'on', adminToken: 'chosen-secret-123' });
    expect(emulator.adminToken).toBe('chosen-secret-123');
    expect((await api(emulator)('GET', '/_emu/state', { token: 'chosen-secret-123' })).status).toBe(200);
  });
});

describe('requests from web pages', async () => {
  const emulator = await startTestEmulator();

  it(
    'a cross-origin state change is refused, even as a "simple" text/plain POST; own origin and non-browsers ' + 'pass',
    async () => {
      const wipe = await api(emulator)('POST', '/_emu/reset', {
        rawBody: '{}',
        headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
      });
      expect(wipe.status).toBe(403);
      expect(wipe.body.message).toContain('Cross-origin');
      expect(wipe.headers.get('access-control-allow-origin')).toBeNull();
      expect((await api(emulator)('POST', '/_emu/reset', { headers: { origin: 'null' } })).status).toBe(403);
      expect(
        (
          await api(emulator)('POST', '/_emu/faults', {
            body: { kind: 'http', path: '/x', status: 500 },
            headers: { origin: 'http://evil.example' },
          })
        ).status,
      ).toBe(403);
      expect((await api(emulator)('GET', '/_emu/faults')).body).toEqual([]);

      expect((await api(emulator)('POST', '/_emu/reset', { headers: { origin: emulator.url } })).status).toBe(204);
      expect((await api(emulator)('POST', '/_emu/reset')).status).toBe(204);
      expect((await api(emulator)('GET', '/_emu/health', { headers: { origin: 'http://evil.example' } })).status).toBe(
        200,
      );
    },
  );

  it(
    'a foreign Host is refused on every route while bound to loopback (DNS rebinding), naming ' + '--allow-host',
    async () => {
      const refused = await rawRequest(emulator.url, 'GET', '/epr/api/v1/endpoints', { host: 'evil.example:8080' });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('--allow-host evil.example');
      expect((await rawRequest(emulator.url, 'GET', '/_emu/health', { host: 'rebind.attacker.test' })).status).toBe(
        403,
      );
      for (const host of ['localhost:1234', '127.0.0.1', '[::1]:8080', 'LOCALHOST']) {
        expect((await rawRequest(emulator.url, 'GET', '/_emu/health', { host })).status, host).toBe(200);
      }
    },
  );

  it('--allow-host adds names; bound to another address any Host passes unless names are given', async () => {
    const allowed = await startTestEmulator({ allowHosts: ['emu.local'] });
    expect((await rawRequest(allowed.url, 'GET', '/_emu/health', { host: 'emu.local:9000' })).status).toBe(200);
    expect((await rawRequest(allowed.url, 'GET', '/_emu/health', { host: 'other.local' })).status).toBe(403);

    const everywhere = await startTestEmulator({ host: '0.0.0.0' });
    expect((await rawRequest(everywhere.url, 'GET', '/_emu/health', { host: 'emulator.container:8080' })).status).toBe(
      200,
    );

    const named = await startTestEmulator({ host: '0.0.0.0', allowHosts: ['emu'] });
    expect((await rawRequest(named.url, 'GET', '/_emu/health', { host: 'emu:8080' })).status).toBe(200);
    expect((await rawRequest(named.url, 'GET', '/_emu/health', { host: 'localhost:8080' })).status).toBe(200);
    expect((await rawRequest(named.url, 'GET', '/_emu/health', { host: 'evil.example' })).status).toBe(403);
  });
});

describe('requests node refuses before express', async () => {
  const emulator = await startTestEmulator();

  it('an over-long URL or header is a 431 with a JSON message', async () => {
    const longUrl = await fetch(`${emulator.url}/epr/api/v1/endpoints?x=${'a'.repeat(20_000)}`);
    expect(longUrl.status).toBe(431);
    expect(longUrl.headers.get('content-type')).toContain('application/json');
    expect((await longUrl.json()).message).toContain('larger than the server accepts');
    const longHeader = await rawRequest(emulator.url, 'GET', '/_emu/health', { 'x-big': 'b'.repeat(20_000) });
    expect(longHeader.status).toBe(431);
    expect(longHeader.body.message).toBeTruthy();
  });

  it('an unknown method gets JSON: a 405 or 404 from express, or a 400 from the parser', async () => {
    const propfind = await rawRequest(emulator.url, 'PROPFIND', '/epr/api/v1/endpoints', {});
    expect(propfind.status).toBe(405);
    expect(propfind.body.message).toContain('PROPFIND');
    const elsewhere = await rawRequest(emulator.url, 'PROPFIND', '/nowhere', {});
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.message).toContain('PROPFIND');
    const invented = await rawSocket(emulator.port, 'FROBNICATE / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(invented).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(invented.slice(invented.indexOf('\r\n\r\n') + 4)).message).toContain('method');
  });
});
