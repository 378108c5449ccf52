import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request with a Host header of our choosing (fetch() does not let us set it), over node:http. */
function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const sent = text === undefined ? headers : { ...headers, 'content-type': 'application/json' };
    const req = httpRequest(`${url}${path}`, { method, headers: sent }, (res) => {
      let answer = '';
      res.on('data', (chunk) => (answer += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: answer ? JSON.parse(answer) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(text);
  });
}

describe('Host is parsed as a URL authority', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it(
    'refuses user info in Host (localhost:21000@evil.example names evil.example), with 400 and nothing ' + 'done',
    async () => {
      const refused = await rawRequest(
        emulator.url,
        'POST',
        '/automation/api/v1/notification-types/email/recipients',
        { host: 'localhost:21000@evil.example' },
        { recipient: 'userinfo@acme.test' },
      );
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/user info/);
      expect((await call('GET', `/_emu/mail?to=${encodeURIComponent('userinfo@acme.test')}`)).body).toEqual([]);
      for (const host of [
        'localhost@evil.example',
        'user:pass@localhost',
        'localhost/evil',
        'localhost:99999',
        'local host',
      ]) {
        expect((await rawRequest(emulator.url, 'GET', '/_emu/health', { host })).status, host).toBe(400);
      }
    },
  );

  it('builds links and Location from the parsed host only', async () => {
    const created = await rawRequest(
      emulator.url,
      'POST',
      '/automation/api/v1/notification-types/email/recipients',
      { host: 'LOCALHOST:21000' },
      { recipient: 'links@acme.test' },
    );
    expect(created.status).toBe(201);
    expect(created.headers.location).toMatch(
      /^http:\/\/localhost:21000\/automation\/api\/v1\/notification-types\/email\/recipients\/\d+$/,
    );
    const [mail] = (await call('GET', `/_emu/mail?to=${encodeURIComponent('links@acme.test')}`)).body;
    expect(mail.links[0]).toMatch(/^http:\/\/localhost:21000\/automation\/api\/v1\//);
    const openapi = await rawRequest(emulator.url, 'GET', '/_emu/openapi.json', { host: '127.0.0.1:21000' });
    expect(openapi.body.servers[0].url).toBe('http://127.0.0.1:21000');
  });

  it('the control plane compares Origin with the parsed authority, never the raw Host text', async () => {
    const port = new URL(emulator.url).port;
    const faults = () => call('GET', '/_emu/faults');
    const fault = { kind: 'http', path: '/epr/api/v1/endpoints', status: 503 };
    // Same text in Host and Origin, but the authority names evil.example: refused, and no fault is set.
    const sneaky = `localhost:${port}@evil.example`;
    const refused = await rawRequest(
      emulator.url,
      'POST',
      '/_emu/faults',
      { host: sneaky, origin: `http://${sneaky}` },
      fault,
    );
    expect(refused.status).toBe(400);
    expect((await faults()).body).toEqual([]);
    // Host names are case-insensitive: LOCALHOST:<port> is the origin http://localhost:<port>, as a browser sends it.
    const own = await rawRequest(
      emulator.url,
      'POST',
      '/_emu/faults',
      { host: `LOCALHOST:${port}`, origin: `http://localhost:${port}` },
      fault,
    );
    expect(own.status, JSON.stringify(own.body)).toBeLessThan(300);
    expect((await faults()).body).toHaveLength(1);
    expect((await rawRequest(emulator.url, 'DELETE', '/_emu/faults', { host: `localhost:${port}` })).status).toBe(204);
  });

  it('refuses it on a non-loopback address too, where every name is accepted', async () => {
    const everywhere = await startTestEmulator({ host: '0.0.0.0' });
    expect(
      (await rawRequest(everywhere.url, 'GET', '/_emu/health', { host: 'emulator.container:8080@evil.example' }))
        .status,
    ).toBe(400);
    expect((await rawRequest(everywhere.url, 'GET', '/_emu/health', { host: 'emulator.container:8080' })).status).toBe(
      200,
    );
  });
});
