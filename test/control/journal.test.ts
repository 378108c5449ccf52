import { describe, expect, it } from 'vitest';
import { registerEndpoint, TestDevice } from '../gateway/device.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { openStream } from '../helpers/event-stream.js';

describe('the request journal', async () => {
  const emulator = await startTestEmulator({ journalSize: 50 });
  const call = api(emulator);

  it('records REST requests with time, tenant, method, path, status and latency; filters and limits them', async () => {
    await call('GET', '/epr/api/v1/endpoints/meter-001');
    await call('GET', '/epr/api/v1/endpoints/nope');
    await call('POST', '/cex/api/v1/endpoints/meter-002/commands/reboot?waitTimeout=0', { body: {} });
    const all = (await call('GET', '/_emu/requests')).body;
    const last = all.at(-1);
    expect(last).toEqual({
      seq: expect.any(Number),
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      type: 'http',
      service: 'cex',
      method: 'POST',
      path: '/cex/api/v1/endpoints/meter-002/commands/reboot?waitTimeout=0',
      tenantId: 'acme',
      endpointId: 'meter-002',
      status: 202,
      latencyMs: expect.any(Number),
    });
    expect((await call('GET', '/_emu/requests?service=epr')).body.map((e: { status: number }) => e.status)).toEqual([
      200, 404,
    ]);
    expect((await call('GET', '/_emu/requests?status=4xx&service=epr')).body).toHaveLength(1);
    expect((await call('GET', '/_emu/requests?status=404')).body[0].path).toBe('/epr/api/v1/endpoints/nope');
    expect((await call('GET', '/_emu/requests?path=/epr/api/v1/endpoints/meter')).body).toHaveLength(1);
    // The push of the new command to the device (journaled also when it is not connected), then the REST answer:
    // entries are in the order they finished.
    expect(
      (await call('GET', '/_emu/requests?endpointId=meter-002')).body.map((e: { type: string }) => e.type),
    ).toEqual(['kp1', 'http']);
    // A bare /api/v1 request (the spelling `platform-emu call` uses) is the service's whose operation answered it.
    await call('GET', '/api/v1/endpoints/meter-001');
    await call('GET', '/api/v1/no-such-thing');
    const bare = (await call('GET', '/_emu/requests?service=epr')).body;
    expect(bare.at(-1)).toMatchObject({ service: 'epr', path: '/api/v1/endpoints/meter-001', status: 200 });
    expect((await call('GET', '/_emu/requests?service=api')).body.map((e: { path: string }) => e.path)).toEqual([
      '/api/v1/no-such-thing',
    ]);
    const limited = (await call('GET', '/_emu/requests?limit=2')).body;
    expect(limited).toHaveLength(2);
    expect(limited[1].seq).toBeGreaterThan(limited[0].seq);
    expect(
      (await call('GET', `/_emu/requests?after=${last.seq}`)).body.every((e: { seq: number }) => e.seq > last.seq),
    ).toBe(true);
    for (const bad of ['limit=0', 'limit=51', 'status=abc', 'type=smtp'])
      expect((await call('GET', `/_emu/requests?${bad}`)).status, bad).toBe(400);
  });

  it('keeps at most --journal-size entries, whatever the load', async () => {
    await Promise.all(Array.from({ length: 120 }, () => call('GET', '/app-manager/api/v1/service-instances')));
    const kept = (await call('GET', '/_emu/requests?limit=50')).body;
    expect(kept).toHaveLength(50);
    expect(kept.at(-1).seq - kept[0].seq).toBe(49);
  });

  it('never holds a secret: no header, no body, secret query values redacted', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const token = secured.token();
    await api(secured)('GET', '/epr/api/v1/endpoints?password=hunter2&client_secret=s3cr3t&limit=5', {
      token,
      headers: { 'X-Auth-Token': 'upload-token-1' },
    });
    await fetch(`${secured.url}/auth/realms/acme/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: 'dev@acme.test', password: 'dev-password' }),
    });
    await api(secured)('POST', '/tenant-manager/api/v1/tenants', {
      token,
      body: { id: 'x', client_backend_secret: 'body-secret', lnsApiKeyId: 'lns-key' },
    });
    const text = (await api(secured)('GET', '/_emu/requests', { token: secured.adminToken })).text;
    for (const secret of [
      token,
      secured.adminToken,
      'hunter2',
      's3cr3t',
      'upload-token-1',
      'dev-password',
      'body-secret',
      'lns-key',
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('password=<redacted>&client_secret=<redacted>&limit=5');
  });

  it('records KP1 messages from devices and pushes to them', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    await device.request(endpoint.topic('tsx'));
    await call('POST', `/cex/api/v1/endpoints/${endpoint.endpointId}/commands/reboot?waitTimeout=0`, { body: {} });
    await call('POST', `/kp1/smart-meter-v1/tsx/${endpoint.token}`);
    const kp1 = (await call('GET', `/_emu/requests?type=kp1&endpointId=${endpoint.endpointId}`)).body;
    expect(kp1.map((e: any) => [e.transport, e.direction, e.status])).toEqual([
      ['mqtt', 'in', 200],
      ['mqtt', 'out', 200],
      ['mqtt', 'out', 200],
      ['mqtt', 'out', 200],
      ['http', 'in', 200],
    ]);
    expect(kp1[0]).toMatchObject({
      service: 'kp1',
      topic: `${endpoint.topic('tsx')}/1`,
      tenantId: 'acme',
      endpointId: endpoint.endpointId,
    });
    // On its first message the device is told the configuration and software it has not applied (docs/devices.md).
    expect(kp1.slice(1, 4).map((e: any) => e.topic)).toEqual([
      `${endpoint.topic('cmx')}/config/json/status`,
      `${endpoint.topic('cmx_ota')}/config/json/status`,
      `${endpoint.topic('cex')}/command/reboot/status`,
    ]);
    // The KP1 HTTP request is journaled once, as a KP1 message.
    expect((await call('GET', `/_emu/requests?path=/kp1/`)).body).toEqual([]);
  });

  it('is the handle API too', async () => {
    expect(emulator.requests({ service: 'epr', limit: 1 })).toHaveLength(1);
  });
});

describe('the event stream', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('streams requests, KP1 messages, command and endpoint changes, connections, clock, faults and state', async () => {
    const stream = await openStream(emulator.url);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toContain('text/event-stream');
    const endpoint = await registerEndpoint(emulator);
    await stream.next(
      (e) => e.event === 'endpoint' && e.data.endpointId === endpoint.endpointId && e.data.change === 'registered',
    );
    const device = await TestDevice.connect(emulator);
    await device.request(endpoint.topic('tsx'));
    await stream.next(
      (e) => e.event === 'connection' && e.data.endpointId === endpoint.endpointId && e.data.online === true,
    );
    await stream.next((e) => e.event === 'kp1' && e.data.endpointId === endpoint.endpointId);
    const created = (
      await call('POST', `/cex/api/v1/endpoints/${endpoint.endpointId}/commands/reboot?waitTimeout=0`, { body: {} })
    ).body;
    const command = await stream.next((e) => e.event === 'command' && e.data.commandId === created.commandId);
    expect(command.data).toMatchObject({
      status: 'PENDING',
      endpointId: endpoint.endpointId,
      tenantId: 'acme',
      commandType: 'reboot',
    });
    await device.request(`${endpoint.topic('cex')}/result/reboot`, [{ id: created.commandId, statusCode: 200 }]);
    await stream.next(
      (e) => e.event === 'command' && e.data.commandId === created.commandId && e.data.status === 'EXECUTED',
    );
    await stream.next(
      (e) => e.event === 'request' && e.data.path.startsWith(`/cex/api/v1/endpoints/${endpoint.endpointId}`),
    );
    await call('PUT', '/_emu/clock', { body: { now: '2030-01-01T00:00:00Z' } });
    expect((await stream.next((e) => e.event === 'clock')).data).toEqual({
      now: '2030-01-01T00:00:00.000Z',
      mode: 'frozen',
    });
    await call('POST', '/_emu/faults', { body: { kind: 'http', path: '/x', status: 500 } });
    expect((await stream.next((e) => e.event === 'faults')).data.faults).toHaveLength(1);
    await call('POST', '/_emu/reset');
    await stream.next((e) => e.event === 'state');
    await stream.close();
  });

  it('filters by type and journal fields, replays after a sequence number, and refuses unknown types', async () => {
    await call('GET', '/epr/api/v1/endpoints/meter-005');
    const seq = (await call('GET', '/_emu/requests?path=/epr/api/v1/endpoints/meter-005')).body.at(-1).seq;
    const stream = await openStream(emulator.url, `?types=request&service=epr&after=${seq - 1}`);
    const replayed = await stream.next((e) => e.event === 'request');
    expect(replayed.data.seq).toBe(seq);
    await call('GET', '/tenant-manager/api/v1/tenants');
    await call('GET', '/epr/api/v1/endpoints/meter-006');
    await stream.next((e) => e.event === 'request' && e.data.path === '/epr/api/v1/endpoints/meter-006');
    expect(stream.events.every((e) => e.event === 'request' && e.data.service === 'epr')).toBe(true);
    await stream.close();
    expect((await call('GET', '/_emu/events?types=gossip')).status).toBe(400);
  });

  it('ends when the emulator stops, so that stopping does not wait for readers', async () => {
    const own = await startTestEmulator();
    const stream = await openStream(own.url);
    const ended = stream.close;
    await own.stop();
    await ended();
  });
});
