import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { loadUiAssets } from '../../src/ui/assets.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';
import { openStream } from '../helpers/event-stream.js';
import { TestDevice } from '../gateway/device.js';

describe("the dashboard's files", async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('serves index.html without caching, naming its modules under one content hash', async () => {
    const page = await fetch(`${emulator.url}/_emu/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const hash = /assets\/([0-9a-f]{12})\/main\.js/.exec(html)?.[1];
    expect(hash).toBe(loadUiAssets().hash);
    const module = await fetch(`${emulator.url}/_emu/ui/assets/${hash}/pages/endpoint.js`);
    expect(module.status).toBe(200);
    expect(module.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(module.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await module.text()).toContain('export async function render');
  });

  it('redirects /_emu/ui to /_emu/ui/ and answers 404 for an old hash or an unknown file', async () => {
    const bare = await fetch(`${emulator.url}/_emu/ui`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/_emu/ui/');
    expect((await call('GET', '/_emu/ui/assets/000000000000/main.js')).status).toBe(404);
    const unknown = await call('GET', `/_emu/ui/assets/${loadUiAssets().hash}/nope.js`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('nope.js');
  });

  it('sends gzip to a browser that takes it, and stays small', async () => {
    const { hash, gzipBytes } = loadUiAssets();
    const response = await request(`${emulator.url}/_emu/ui/assets/${hash}/main.js`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(Buffer.from(await response.body.arrayBuffer())).toString()).toContain('connectEvents');
    const plain = await request(`${emulator.url}/_emu/ui/assets/${hash}/main.js`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(await plain.body.text()).toContain('connectEvents');
    expect(gzipBytes).toBeLessThan(300 * 1024);
  });
});

describe('simulated devices from the dashboard: /_emu/devices', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('starts a device for an endpoint that answers by its rule, lists it, and stops it', async () => {
    const stream = await openStream(emulator.url, '?types=device,connection');
    const started = await call('POST', '/_emu/devices', {
      body: { endpointId: 'meter-002', rules: { commands: { ping: { statusCode: 200, payload: { pong: true } } } } },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      endpointId: 'meter-002',
      tenantId: 'acme',
      appVersion: 'smart-meter-v1',
      answered: 0,
    });
    await stream.next((e) => e.event === 'device' && e.data.change === 'started' && e.data.endpointId === 'meter-002');
    const connections = await call('GET', '/_emu/connections');
    expect(connections.body).toContainEqual(
      expect.objectContaining({ endpointId: 'meter-002', online: true, transport: 'mqtt' }),
    );

    const answer = await call('POST', '/cex/api/v1/endpoints/meter-002/commands/ping?waitTimeout=10', { body: {} });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ pong: true });
    expect((await call('GET', '/_emu/devices')).body).toEqual([
      expect.objectContaining({ endpointId: 'meter-002', answered: 1 }),
    ]);

    expect((await call('POST', '/_emu/devices', { body: { endpointId: 'meter-002' } })).status).toBe(409);
    expect((await call('DELETE', '/_emu/devices/meter-002')).status).toBe(204);
    await stream.next((e) => e.event === 'device' && e.data.change === 'stopped');
    await stream.next((e) => e.event === 'connection' && e.data.endpointId === 'meter-002' && !e.data.online);
    expect((await call('GET', '/_emu/devices')).body).toEqual([]);
    expect((await call('DELETE', '/_emu/devices/meter-002')).status).toBe(404);
    await stream.close();
  });

  it('refuses bad requests with a message and starts nothing', async () => {
    const cases: Array<[unknown, number, RegExp]> = [
      [[], 400, /JSON object/],
      [{}, 400, /endpointId/],
      [{ endpointId: 'meter-001', colour: 'red' }, 400, /unknown field colour/],
      [{ endpointId: 'meter-001', telemetry: 'temp=1..2' }, 400, /telemetry/],
      [{ endpointId: 'meter-001', rules: { commands: { ping: { statusCode: 42 } } } }, 400, /statusCode/],
      [{ endpointId: 'thermo-001' }, 404, /no endpoint thermo-001/],
      [{ endpointId: 'nope' }, 404, /no endpoint/],
    ];
    for (const [body, status, message] of cases) {
      const response = await call('POST', '/_emu/devices', { body });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.message).toMatch(message);
    }
    expect((await call('GET', '/_emu/devices')).body).toEqual([]);
  });

  it("writes an endpoint's metadata, as a device would over epmx, and announces it", async () => {
    const stream = await openStream(emulator.url, '?types=endpoint');
    const written = await call('PUT', '/_emu/endpoints/meter-003/metadata', {
      body: { model: 'SM-300', site_code: 7 },
    });
    expect(written.status).toBe(200);
    expect(written.body.metadata).toEqual({ model: 'SM-300', site_code: 7 });
    await stream.next((e) => e.data.endpointId === 'meter-003' && e.data.change === 'metadata');
    expect((await call('GET', '/epr/api/v1/endpoints/meter-003?include=metadata')).body.metadata).toEqual({
      model: 'SM-300',
      site_code: 7,
    });
    expect((await call('PUT', '/_emu/endpoints/meter-003/metadata', { body: ['x'] })).status).toBe(400);
    expect((await call('PUT', '/_emu/endpoints/meter-003/metadata', { body: { 'bad key': 1 } })).body.message).toMatch(
      /bad key/,
    );
    expect((await call('PUT', '/_emu/endpoints/nope/metadata', { body: {} })).status).toBe(404);
    await stream.close();
  });

  it('announces captured mail on the event stream', async () => {
    const stream = await openStream(emulator.url, '?types=mail');
    await call('POST', '/automation/api/v1/notification-types/email/recipients', {
      body: { recipient: 'stream@acme.test' },
    });
    const mail = await stream.next((e) => e.event === 'mail');
    expect(mail.data).toMatchObject({
      id: expect.any(Number),
      to: 'stream@acme.test',
      tenantId: 'acme',
      links: [expect.stringContaining('http')],
    });
    await stream.close();
  });
});

describe('the endpoints online now, a page at a time: /_emu/connections/online', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  // More than the ~1,000 ids that no longer fit in a query string (the dashboard's "online only" once sent them).
  const COUNT = 1100;
  const ids = Array.from({ length: COUNT }, (_, i) => `online-${String(i).padStart(4, '0')}`);
  const versionOf = (i: number) => (i % 10 === 0 ? 'smart-meter-v2' : 'smart-meter-v1');
  const online = (query = '') => call('GET', `/_emu/connections/online${query}`);

  it(
    "pages more than 1,000 online endpoints in the register's order and with its filters, each " +
      'with its connection',
    async () => {
      const register = (endpointId: string, version: string, metadata: Record<string, unknown>) =>
        call('POST', '/epr/api/v1/endpoints', {
          body: { appVersion: { name: version }, endpointId, endpointToken: `${endpointId}-token`, metadata },
        });
      for (let start = 0; start < COUNT; start += 100) {
        const created = await Promise.all(
          ids.slice(start, start + 100).map((id, j) => register(id, versionOf(start + j), { batch: (start + j) % 2 })),
        );
        expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
      }
      expect((await register('never-online', 'smart-meter-v1', { batch: 1 })).status).toBe(201);

      // One connection speaking for every endpoint; its requests are handled in order, so after the last reply all are
      // online. That reply queues behind 1,099 requests (and the configuration each endpoint is sent), which takes
      // longer than a single reply's usual 3 s on a busy machine: wait for it up to the test's own time.
      const device = await TestDevice.connect(emulator);
      for (let i = 0; i < COUNT - 1; i++) await device.publish(`kp1/${versionOf(i)}/tsx/${ids[i]}-token`);
      const last = await device.request(`kp1/${versionOf(COUNT - 1)}/tsx/${ids[COUNT - 1]}-token`, '', 0, 45_000);
      expect(last.ok).toBe(true);

      const first = await online();
      expect(first.status).toBe(200);
      expect(first.body.totalElements).toBe(COUNT);
      expect(first.body.content).toHaveLength(50);
      const registerOrder = (await call('GET', '/epr/api/v1/endpoints?limit=0&include=metadata')).body.content.filter(
        (e: { endpointId: string }) => e.endpointId.startsWith('online-'),
      );
      // As the register lists an endpoint with include=metadata (without its filters), plus the connection.
      const { filters: _filters, ...expected } = registerOrder[0];
      expect(first.body.content[0]).toEqual({
        ...expected,
        connection: {
          endpointId: expected.endpointId,
          online: true,
          transport: 'mqtt',
          clientId: device.client.options.clientId,
          lastSeen: expect.any(String),
          connectedSince: expect.any(String),
          // How it logged in: plain MQTT without credentials.
          login: { tls: false },
        },
      });

      const paged: string[] = [];
      for (let offset = 0; offset < COUNT; offset += 500)
        paged.push(
          ...(await online(`?offset=${offset}&limit=500`)).body.content.map(
            (e: { endpointId: string }) => e.endpointId,
          ),
        );
      expect(paged).toEqual(registerOrder.map((e: { endpointId: string }) => e.endpointId));
      expect((await online(`?offset=${COUNT}`)).body).toEqual({ totalElements: COUNT, content: [] });
      expect((await online('?limit=0')).body.content).toHaveLength(COUNT);

      // The register's filters, as the dashboard sends them.
      expect((await online('?applicationVersionName=smart-meter-v2')).body.totalElements).toBe(COUNT / 10);
      expect(
        (await online('?applicationName=smart-meter&metadataFilter=' + encodeURIComponent('{"batch":1}'))).body
          .totalElements,
      ).toBe(COUNT / 2);
      const two = await online('?endpointId=online-0007,never-online');
      expect(two.body).toEqual({
        totalElements: 1,
        content: [expect.objectContaining({ endpointId: 'online-0007', metadata: { batch: 1 } })],
      });
      expect((await online('?tenantId=globex')).body).toEqual({ totalElements: 0, content: [] });

      // When the connection closes, every endpoint it spoke for goes offline at once.
      const stream = await openStream(emulator.url, '?types=connection');
      await device.close();
      await stream.next((e) => e.data.endpointId.startsWith('online-') && !e.data.online);
      expect((await online()).body).toEqual({ totalElements: 0, content: [] });
      await stream.close();
    },
    60_000,
  );

  it('refuses bad parameters with a message', async () => {
    const cases: Array<[string, number, RegExp]> = [
      ['?metadataFilter=nope', 400, /metadataFilter must be a URL-encoded JSON object/],
      [`?metadataFilter=${encodeURIComponent('{"a":1,"b":2}')}`, 400, /exactly one key-value pair/],
      ['?limit=-1', 400, /limit must be a whole number/],
      ['?offset=x', 400, /offset must be a whole number/],
      ['?tenantId=nobody', 404, /no tenant "nobody"/],
    ];
    for (const [query, status, message] of cases) {
      const response = await online(query);
      expect(response.status, query).toBe(status);
      expect(response.body.message).toMatch(message);
    }
  });
});

describe('the dashboard with auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);

  it('serves its page and modules without a token; everything it calls under /_emu needs the admin token', async () => {
    expect((await fetch(`${emulator.url}/_emu/ui/`)).status).toBe(200);
    expect((await call('GET', `/_emu/ui/assets/${loadUiAssets().hash}/main.js`)).status).toBe(200);
    expect((await call('POST', '/_emu/ui/')).status).toBe(401);
    expect((await call('GET', '/_emu/devices')).status).toBe(401);
    expect((await call('GET', '/_emu/connections')).status).toBe(401);
    expect((await call('GET', '/_emu/connections/online')).status).toBe(401);
    expect((await call('GET', '/_emu/connections/online', { token: emulator.adminToken })).body).toEqual({
      totalElements: 0,
      content: [],
    });
    expect((await call('GET', '/_emu/devices', { token: await tokenFor(emulator) })).status).toBe(403);
    expect((await call('GET', '/_emu/devices', { token: emulator.adminToken })).status).toBe(200);
  });

  it('starts a device that registers nothing and needs no token of its own', async () => {
    const started = await call('POST', '/_emu/devices', {
      token: emulator.adminToken,
      body: { endpointId: 'meter-001' },
    });
    expect(started.status).toBe(201);
    expect((await call('DELETE', '/_emu/devices/meter-001', { token: emulator.adminToken })).status).toBe(204);
  });
});
