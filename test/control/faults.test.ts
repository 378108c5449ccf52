import { describe, expect, it } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import { CONNECTION_CHANGED, REQUEST_RECORDED } from '../../src/server/events.js';
import type { JournalEntry } from '../../src/index.js';
import { registerEndpoint, TestDevice } from '../gateway/device.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('HTTP faults', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const addFault = (fault: Record<string, unknown>) => call('POST', '/_emu/faults', { body: fault });

  it('answer a status for the next count requests under a path prefix, then go away', async () => {
    const added = await addFault({
      kind: 'http',
      path: '/epr/api/v1/endpoints',
      status: 503,
      message: 'Maintenance',
      count: 2,
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: expect.any(String), kind: 'http', status: 503, count: 2, hits: 0 });
    const first = await call('GET', '/epr/api/v1/endpoints/meter-001');
    expect(first.status).toBe(503);
    expect(first.body).toEqual({ message: 'Maintenance' });
    expect((await call('GET', '/epr/api/v1/endpoints')).status).toBe(503);
    expect((await call('GET', '/epr/api/v1/endpoints')).status).toBe(200);
    expect((await call('GET', '/_emu/faults')).body).toEqual([]);
  });

  it('match a method and a glob (* one level, ** any), and never the control plane', async () => {
    const onePerEndpoint = (
      await addFault({ kind: 'http', method: 'get', path: '/epr/api/v1/endpoints/*', status: 500 })
    ).body;
    expect(onePerEndpoint.method).toBe('GET');
    expect((await call('GET', '/epr/api/v1/endpoints/meter-001')).status).toBe(500);
    expect((await call('GET', '/epr/api/v1/endpoints')).status).toBe(200);
    expect((await call('GET', '/epr/api/v1/endpoints/meter-001/filters')).status).not.toBe(500);
    expect((await call('DELETE', `/_emu/faults/${onePerEndpoint.id}`)).status).toBe(204);
    expect((await call('DELETE', `/_emu/faults/${onePerEndpoint.id}`)).status).toBe(404);

    await addFault({ kind: 'http', path: '/cex/**/reboot', method: 'POST', status: 429 });
    expect(
      (await call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', { body: {} })).status,
    ).toBe(429);
    expect(
      (await call('POST', '/cex/api/v1/endpoints/meter-001/commands/ping?waitTimeout=0', { body: {} })).status,
    ).toBe(202);

    await addFault({ kind: 'http', path: '/', status: 502 });
    expect((await call('GET', '/app-manager/api/v1/service-instances')).status).toBe(502);
    expect((await call('GET', '/_emu/health')).status).toBe(200);
    expect((await call('GET', '/_emu/faults')).body).toHaveLength(2);
    expect((await call('DELETE', '/_emu/faults')).status).toBe(204);
    expect((await call('GET', '/app-manager/api/v1/service-instances')).status).toBe(200);
  });

  it('delay a request and let it through, or drop the connection; probability 0 never hits', async () => {
    await addFault({ kind: 'http', path: '/epr/api/v1/endpoints/meter-002', latencyMs: 300 });
    const started = performance.now();
    expect((await call('GET', '/epr/api/v1/endpoints/meter-002')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);

    await addFault({ kind: 'http', path: '/epr/api/v1/endpoints/meter-003', drop: true });
    await expect(fetch(`${emulator.url}/epr/api/v1/endpoints/meter-003`)).rejects.toThrow();
    const dropped = (await call('GET', '/_emu/requests?path=/epr/api/v1/endpoints/meter-003')).body;
    expect(dropped.at(-1)).toMatchObject({ status: 0 });

    await addFault({ kind: 'http', path: '/epr/api/v1/endpoints/meter-004', status: 500, probability: 0 });
    for (let i = 0; i < 5; i++) expect((await call('GET', '/epr/api/v1/endpoints/meter-004')).status).toBe(200);
    await call('DELETE', '/_emu/faults');
  });

  it(
    "hit a service's operations in both spellings: a fault on /epr also hits the bare /api/v1 path epr " + 'answers',
    async () => {
      await addFault({ kind: 'http', path: '/epr', status: 503 });
      // The bare spelling `platform-emu call` uses: GET /api/v1/endpoints/{id} is the endpoint register's.
      expect((await call('GET', '/api/v1/endpoints/meter-001')).status).toBe(503);
      expect((await call('GET', '/epr/api/v1/endpoints/meter-001')).status).toBe(503);
      // The configuration registry's listing at /ecr is another service, and so is its bare path.
      expect((await call('GET', '/ecr/api/v1/endpoints/meter-001')).status).toBe(200);
      expect((await call('GET', '/api/v1/applications/smart-meter')).status).not.toBe(503);
      await call('DELETE', '/_emu/faults');

      // A fault on the bare spelling hits the prefixed one of the same operation, and not another service's.
      await addFault({ kind: 'http', path: '/api/v1/endpoints/meter-001', method: 'GET', status: 500 });
      expect((await call('GET', '/epr/api/v1/endpoints/meter-001')).status).toBe(500);
      expect((await call('GET', '/api/v1/endpoints/meter-001')).status).toBe(500);
      expect((await call('GET', '/ecr/api/v1/endpoints/meter-001')).status).toBe(200);
      await call('DELETE', '/_emu/faults');
    },
  );

  it('are validated: 400 naming the problem, nothing added', async () => {
    for (const bad of [
      {},
      { kind: 'http' },
      { kind: 'http', path: 'no-slash', status: 500 },
      { kind: 'http', path: '/x', status: 200 },
      { kind: 'http', path: '/x' },
      { kind: 'http', path: '/x', status: 500, drop: true },
      { kind: 'http', path: '/x', status: 500, probability: 2 },
      { kind: 'http', path: '/x', status: 500, colour: 'red' },
      { kind: 'device', endpointId: 'meter-001', mode: 'asleep' },
      { kind: 'device', mode: 'offline' },
    ]) {
      const response = await addFault(bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.message).toBeTruthy();
    }
    expect((await call('GET', '/_emu/faults')).body).toEqual([]);
  });

  it('are listed in health and cleared by reset', async () => {
    await addFault({ kind: 'http', path: '/epr', status: 500 });
    await addFault({ kind: 'device', endpointId: 'meter-001', mode: 'offline' });
    const health = (await call('GET', '/_emu/health')).body;
    expect(health.faults.map((f: { kind: string }) => f.kind)).toEqual(['http', 'device']);
    await call('POST', '/_emu/reset');
    expect((await call('GET', '/_emu/health')).body.faults).toEqual([]);
    expect((await call('GET', '/epr/api/v1/endpoints')).status).toBe(200);
  });

  it('are the handle API too', async () => {
    const fault = emulator.faults.add({ kind: 'http', path: '/tenant-manager', status: 418 });
    expect((await call('GET', '/tenant-manager/api/v1/tenants')).status).toBe(418);
    expect(emulator.faults.list()).toHaveLength(1);
    expect(emulator.faults.remove(fault.id)).toBe(true);
    expect(() => emulator.faults.add({ kind: 'http', path: 'x' } as never)).toThrow(/Invalid fault/);
    emulator.faults.clear();
  });
});

describe('device faults', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const invoke = (endpointId: string) =>
    call('POST', `/cex/api/v1/endpoints/${endpointId}/commands/reboot?waitTimeout=0`, { body: { n: 1 } });

  /** The next journal entry that matches, as the emulator records it. */
  function journaled(match: (entry: JournalEntry) => boolean): Promise<JournalEntry> {
    const events = internalContext(emulator).events;
    return new Promise((resolve) => {
      const listener = (entry: JournalEntry) => {
        if (!match(entry)) return;
        events.off(REQUEST_RECORDED, listener);
        resolve(entry);
      };
      events.on(REQUEST_RECORDED, listener);
    });
  }

  async function speakingDevice() {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    expect((await device.request(`${endpoint.topic('tsx')}`)).ok).toBe(true);
    return { endpoint, device };
  }

  it('offline: the device hears nothing and is not heard, so its commands stay pending', async () => {
    const { endpoint, device } = await speakingDevice();
    expect(
      (
        await call('POST', '/_emu/faults', {
          body: { kind: 'device', endpointId: endpoint.endpointId, mode: 'offline' },
        })
      ).status,
    ).toBe(201);
    const command = (await invoke(endpoint.endpointId)).body;
    const swallowed = journaled((e) => e.endpointId === endpoint.endpointId && e.direction === 'in' && e.status === 0);
    await device.publish(`${endpoint.topic('cex')}/result/reboot/7`, [{ id: command.commandId, statusCode: 200 }]);
    await swallowed;

    await call('DELETE', '/_emu/faults');
    // Replies and pushes reach one connection in order: the push, had it been sent, would be here before this reply.
    expect((await device.request(`${endpoint.topic('tsx')}`)).ok).toBe(true);
    expect(device.messages.filter((m) => m.topic.includes('/command/reboot'))).toEqual([]);
    expect(device.onTopic(`${endpoint.topic('cex')}/result/reboot/7/status`)).toEqual([]);
    expect(
      (await call('GET', `/cex/api/v1/endpoints/${endpoint.endpointId}/commands/reboot/${command.commandId}`)).body
        .status,
    ).toBe('pending');

    const journal = (await call('GET', `/_emu/requests?type=kp1&endpointId=${endpoint.endpointId}`)).body;
    expect(
      journal.filter((e: { status: number }) => e.status === 0).map((e: { direction: string }) => e.direction),
    ).toEqual(['out', 'in']);
  });

  it('slow: the answers come latencyMs late', async () => {
    const { endpoint, device } = await speakingDevice();
    await call('POST', '/_emu/faults', {
      body: { kind: 'device', endpointId: endpoint.endpointId, mode: 'slow', latencyMs: 300 },
    });
    const started = performance.now();
    expect((await device.request(`${endpoint.topic('tsx')}`)).ok).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    await call('DELETE', '/_emu/faults');
  });

  it('disconnect: the connection that speaks for the endpoint is closed now; nothing stays listed', async () => {
    const { endpoint, device } = await speakingDevice();
    const closed = new Promise<void>((resolve) => device.client.once('close', () => resolve()));
    const offline = new Promise<void>((resolve) => {
      const listener = (state: { endpointId: string; online: boolean }) => {
        if (state.endpointId !== endpoint.endpointId || state.online) return;
        internalContext(emulator).events.off(CONNECTION_CHANGED, listener);
        resolve();
      };
      internalContext(emulator).events.on(CONNECTION_CHANGED, listener);
    });
    const added = await call('POST', '/_emu/faults', {
      body: { kind: 'device', endpointId: endpoint.endpointId, mode: 'disconnect' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: expect.any(String), mode: 'disconnect' });
    await closed;
    await offline;
    expect((await call('GET', '/_emu/faults')).body).toEqual([]);
  });
});
