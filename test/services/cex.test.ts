import { internalContext } from '../../src/emulator.js';
import { describe, expect, it } from 'vitest';
import { COMMANDS, settledEvent } from '../../src/services/cex/commands.js';
import { waiterCount } from '../../src/services/cex/wait.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, sleep, TestDevice } from '../gateway/device.js';

const cex = '/cex/api/v1';

describe('command invocation with a device on MQTT', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const stored = (commandId: number) =>
    COMMANDS.get(internalContext(emulator), String(commandId)) as Record<string, any> | undefined;

  it('register over REST, connect, observe, invoke over REST, answer: 200 with the device payload', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    const observe = await device.request(`${endpoint.topic('cex')}/command/reboot`, { observe: true });
    expect(observe.payload).toEqual([]);

    const invocation = call('POST', `${cex}/endpoints/${endpoint.endpointId}/commands/reboot?waitTimeout=10`, {
      body: { delay: 3 },
    });
    const pushed = await device.waitFor((m) => m.topic === `${observe.requestTopic}/status` && m.payload.length > 0);
    const [{ id, payload }] = pushed.payload;
    expect(payload).toEqual({ delay: 3 });
    const result = await device.request(`${endpoint.topic('cex')}/result/reboot`, [
      { id, statusCode: 200, reasonPhrase: 'Rebooted', payload: { uptime: 0 } },
    ]);
    expect(result.ok).toBe(true);

    const response = await invocation;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ uptime: 0 });

    const record = await call('GET', `${cex}/endpoints/${endpoint.endpointId}/commands/reboot/${id}`);
    expect(record.body).toEqual({
      commandId: id,
      commandType: 'reboot',
      endpointId: endpoint.endpointId,
      status: 'executed',
      statusCode: 200,
      reasonPhrase: 'Rebooted',
      requestPayload: { delay: 3 },
      responsePayload: { uptime: 0 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await call('GET', `${cex}/endpoints/${endpoint.endpointId}/commands/reboot/last`)).body.commandId).toBe(id);
    // Both answered and a second report is refused, with nothing changed.
    const again = await device.request(`${endpoint.topic('cex')}/result/reboot`, [{ id, statusCode: 500 }]);
    expect(again.payload).toMatchObject({
      statusCode: 409,
      reasonPhrase: expect.stringMatching(/already has a result/),
    });
    expect(stored(id)!.statusCode).toBe(200);
  });

  it('202 with Location when the wait runs out; the device polls and answers later', async () => {
    const endpoint = await registerEndpoint(emulator);
    const response = await call('POST', `${cex}/endpoints/${endpoint.endpointId}/commands/locate?awaitTimeout=1`, {
      body: { precise: true },
    });
    expect(response.status).toBe(202);
    const id = response.body.commandId;
    expect(response.body.status).toBe('pending');
    const location = response.headers.get('location')!;
    expect(location).toBe(`${emulator.url}${cex}/endpoints/${endpoint.endpointId}/commands/locate/${id}`);
    expect((await call('GET', new URL(location).pathname)).body.status).toBe('pending');

    const device = await TestDevice.connect(emulator);
    const poll = await device.request(`${endpoint.topic('cex')}/command/locate`, {});
    expect(poll.payload).toEqual([{ id, payload: { precise: true } }]);
    expect((await device.request(`${endpoint.topic('cex')}/command/other`, {})).payload).toEqual([]);
    await device.request(`${endpoint.topic('cex')}/result/locate`, [{ id, statusCode: 404, reasonPhrase: 'No fix' }]);
    const done = await call('GET', new URL(location).pathname);
    expect(done.body).toMatchObject({ status: 'executed', statusCode: 404, reasonPhrase: 'No fix' });
    expect(done.body).not.toHaveProperty('responsePayload');
    expect((await device.request(`${endpoint.topic('cex')}/command/locate`, {})).payload).toEqual([]);
  });

  it('expires a pending command on time and wakes its wait with 202', async () => {
    const endpoint = await registerEndpoint(emulator);
    const started = Date.now();
    const response = await call(
      'POST',
      `${cex}/endpoints/${endpoint.endpointId}/commands/reboot?awaitTimeout=10&commandTtl=300`,
      { body: {} },
    );
    expect(response.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(3000);
    const id = response.body.commandId;
    expect(response.body.status).toBe('expired');
    expect(stored(id)!.status).toBe('EXPIRED');

    const device = await TestDevice.connect(emulator);
    expect((await device.request(`${endpoint.topic('cex')}/command/reboot`, {})).payload).toEqual([]);
    const late = await device.request(`${endpoint.topic('cex')}/result/reboot`, [{ id, statusCode: 200 }]);
    expect(late.payload).toMatchObject({ statusCode: 409, reasonPhrase: expect.stringMatching(/expired/) });
    expect((await call('GET', `${cex}/endpoints/${endpoint.endpointId}/commands/reboot/last`)).status).toBe(404);
  });

  it('expires without anyone waiting or asking (a timer, not a read)', async () => {
    const endpoint = await registerEndpoint(emulator);
    const response = await call(
      'POST',
      `${cex}/endpoints/${endpoint.endpointId}/commands/reboot?awaitTimeout=0&commandTtl=100`,
      { body: {} },
    );
    expect(stored(response.body.commandId)!.status).toBe('PENDING');
    await sleep(400);
    expect(stored(response.body.commandId)!.status).toBe('EXPIRED');
  });

  it('the device may answer over the HTTP binding as well', async () => {
    const endpoint = await registerEndpoint(emulator);
    const invocation = call('POST', `${cex}/endpoints/${endpoint.endpointId}/commands/reboot?waitTimeout=10`, {
      body: { n: 1 },
    });
    let pending: any[] = [];
    while (pending.length === 0) {
      pending = (await call('POST', `/${endpoint.topic('cex')}/command/reboot`, { rawBody: '{}' })).body;
    }
    const answer = await call('POST', `/${endpoint.topic('cex')}/result/reboot`, {
      rawBody: JSON.stringify([{ id: pending[0].id, statusCode: 200, payload: 'done' }]),
    });
    expect(answer.status).toBe(200);
    const response = await invocation;
    expect(response).toMatchObject({ status: 200, body: 'done' });
  });

  it('a client that disconnects while waiting leaves no waiter behind', async () => {
    const endpoint = await registerEndpoint(emulator);
    const abort = new AbortController();
    const request = fetch(`${emulator.url}${cex}/endpoints/${endpoint.endpointId}/commands/reboot?waitTimeout=30`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: abort.signal,
    }).catch(() => 'aborted');
    let id: number | undefined;
    while (id === undefined) {
      await sleep(20);
      id = [...COMMANDS.values(internalContext(emulator))].find((c) => c.endpointId === endpoint.endpointId)?.commandId;
    }
    expect(waiterCount(internalContext(emulator))).toBeGreaterThan(0);
    abort.abort();
    expect(await request).toBe('aborted');
    await sleep(100);
    expect(internalContext(emulator).events.listenerCount(settledEvent(id))).toBe(0);
    expect(waiterCount(internalContext(emulator))).toBe(0);
  });
});

describe('command invocation over REST', async () => {
  const emulator = await startTestEmulator({ asyncRequestTimeout: 20 });
  const call = api(emulator);
  const stored = (commandId: number) =>
    COMMANDS.get(internalContext(emulator), String(commandId)) as Record<string, any>;
  const post = (
    query: string,
    options: Parameters<typeof call>[2] = { body: {} },
    endpointId = 'meter-001',
    type = 'reboot',
  ) => call('POST', `${cex}/endpoints/${endpointId}/commands/${type}${query}`, options);

  it('first revision: awaitTimeout and commandTtl (default 60000 ms)', async () => {
    const response = await post('?awaitTimeout=0');
    const record = stored(response.body.commandId);
    expect(Date.parse(record.expiresAt) - Date.parse(record.createdAt)).toBe(60_000);
    const custom = stored((await post('?awaitTimeout=0&commandTtl=5000')).body.commandId);
    expect(Date.parse(custom.expiresAt) - Date.parse(custom.createdAt)).toBe(5000);
    expect(Date.parse(custom.retainUntil) - Date.parse(custom.createdAt)).toBe(720 * 3_600_000);
  });

  it(
    'second revision: waitTimeout and commandRetentionTtl (default 720 hours); pending until the retention ' + 'ends',
    async () => {
      const record = stored((await post('?waitTimeout=0&commandRetentionTtl=2')).body.commandId);
      expect(record.expiresAt).toBeUndefined();
      expect(Date.parse(record.retainUntil) - Date.parse(record.createdAt)).toBe(2 * 3_600_000);
      const byDefault = stored((await post('?waitTimeout=0')).body.commandId);
      expect(Date.parse(byDefault.retainUntil) - Date.parse(byDefault.createdAt)).toBe(720 * 3_600_000);
    },
  );

  const invalid: Array<[string, string, RegExp]> = [
    [
      'awaitTimeout over the asynchronous request timeout',
      '?awaitTimeout=21',
      /must not exceed the asynchronous request timeout of 20 seconds/,
    ],
    ['waitTimeout negative', '?waitTimeout=-1', /waitTimeout must be a whole number/],
    ['waitTimeout not a number', '?waitTimeout=soon', /waitTimeout must be a whole number/],
    ['two different waits', '?awaitTimeout=1&waitTimeout=2', /not both/],
    ['commandTtl zero', '?commandTtl=0', /commandTtl must be a whole number from 1/],
    ['commandRetentionTtl fractional', '?commandRetentionTtl=1.5', /commandRetentionTtl must be a whole number/],
  ];
  for (const [what, query, message] of invalid) {
    it(`400 for ${what}`, async () => {
      const response = await post(query);
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
    });
  }

  it(
    '400 for a command type that is not alphanumeric, and for a body that is not JSON under ' + 'application/json',
    async () => {
      expect((await post('?waitTimeout=0', { body: {} }, 'meter-001', 're-boot')).status).toBe(400);
      const bad = await post('?waitTimeout=0', { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/not valid JSON.*text\/plain/);
    },
  );

  it('stores text/plain without validation and delivers it as a string', async () => {
    const response = await post(
      '?waitTimeout=0',
      { rawBody: 'not {json', headers: { 'content-type': 'text/plain; charset=utf-8' } },
      'meter-002',
      'display',
    );
    expect(response.status).toBe(202);
    expect(response.body.requestPayload).toBe('not {json');
    const device = await TestDevice.connect(emulator);
    const poll = await device.request('kp1/smart-meter-v1/cex/meter-002-token/command/display', {});
    expect(poll.payload).toEqual([{ id: response.body.commandId, payload: 'not {json' }]);
  });

  it('takes JSON (application/json, a +json type or no Content-Type) and text; any other type is 415', async () => {
    // A Buffer body goes out without a Content-Type.
    const untyped = await post('?waitTimeout=0', { rawBody: Buffer.from('{"delay":1}') });
    expect(untyped.status, untyped.text).toBe(202);
    expect(untyped.body.requestPayload).toEqual({ delay: 1 });
    const vendor = await post('?waitTimeout=0', {
      rawBody: '{"delay":2}',
      headers: { 'content-type': 'application/vnd.acme+json; charset=utf-8' },
    });
    expect(vendor.body.requestPayload).toEqual({ delay: 2 });
    for (const type of ['application/xml', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      const refused = await post('?waitTimeout=0', { rawBody: '<a/>', headers: { 'content-type': type } });
      expect(refused.status, type).toBe(415);
      expect(refused.body.message).toMatch(/application\/json or text\/plain/);
    }
    const notJson = await post('?waitTimeout=0', { rawBody: '<a/>', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/not valid JSON.*text\/plain/);
    const empty = await post('?waitTimeout=0', {});
    expect(empty.status).toBe(202);
    expect(empty.body).not.toHaveProperty('requestPayload');
  });

  it("404 for an unknown endpoint and for another tenant's", async () => {
    expect((await post('?waitTimeout=0', { body: {} }, 'no-such-endpoint')).status).toBe(404);
    expect((await post('?waitTimeout=0', { body: {} }, 'thermo-001')).status).toBe(404);
    expect((await call('GET', `${cex}/endpoints/thermo-001/commands/reboot/last`)).status).toBe(404);
  });

  it('gets, deletes and finds the last executed command', async () => {
    const id = (await post('?waitTimeout=0', { body: {} }, 'meter-003', 'reset')).body.commandId;
    const path = `${cex}/endpoints/meter-003/commands/reset/${id}`;
    expect((await call('GET', path)).body.status).toBe('pending');
    expect((await call('GET', `${cex}/endpoints/meter-003/commands/other/${id}`)).status).toBe(404);
    expect((await call('GET', `${cex}/endpoints/meter-003/commands/reset/abc`)).status).toBe(400);
    expect((await call('GET', `${cex}/endpoints/meter-003/commands/reset/last`)).status).toBe(404);
    expect(
      (await call('GET', `${cex}/endpoints/meter-003/commands/reset/last?endpointId=meter-003&commandType=reset`))
        .status,
    ).toBe(404);
    expect((await call('GET', `${cex}/endpoints/meter-003/commands/reset/last?endpointId=meter-004`)).status).toBe(400);
    expect((await call('DELETE', path)).status).toBe(204);
    expect((await call('GET', path)).status).toBe(404);
    expect((await call('DELETE', path)).status).toBe(404);
  });

  it('lists the commands of endpoints (later revision: commandTypes required) and of an application', async () => {
    await post('?waitTimeout=0', { body: { a: 1 } }, 'meter-005', 'alpha');
    await post('?waitTimeout=0', { body: { b: 1 } }, 'meter-005', 'beta');
    await post('?waitTimeout=0', { body: {} }, 'meter-006', 'alpha');

    for (const query of [
      'endpointId=meter-005',
      'endpointId=meter-005&commandTypes=',
      'endpointId=meter-005&commandTypes=,',
    ]) {
      const missing = await call('GET', `${cex}/endpoints/commands?${query}`);
      expect(missing.status).toBe(400);
      expect(missing.body.message).toMatch(/commandTypes is required.*--compat cex=1/);
    }
    expect((await call('GET', `${cex}/endpoints/commands?endpointId=meter-005&commandTypes=a-b`)).status).toBe(400);

    const first = await call(
      'GET',
      `${cex}/endpoints/commands?endpointId=meter-005,meter-006,thermo-001&commandTypes=alpha,beta`,
    );
    expect(first.body.map((d: any) => [d.endpointId, d.commands.map((c: any) => c.commandType)])).toEqual([
      ['meter-005', ['alpha', 'beta']],
      ['meter-006', ['alpha']],
    ]);
    const second = await call(
      'GET',
      `${cex}/endpoints/commands?endpointId=meter-005&endpointId=meter-006&commandTypes=beta`,
    );
    expect(second.body.map((d: any) => [d.endpointId, d.commands.length])).toEqual([
      ['meter-005', 1],
      ['meter-006', 0],
    ]);
    expect((await call('GET', `${cex}/endpoints/commands`)).status).toBe(400);

    const page = await call('GET', `${cex}/endpoints/commands/smart-meter?commandTypes=alpha,beta&limit=1&offset=1`);
    expect(page.body).toMatchObject({ totalElements: 2, offset: 1, limit: 1 });
    expect(page.body.content).toEqual([
      { endpointId: 'meter-006', commands: [expect.objectContaining({ commandType: 'alpha' })] },
    ]);
    expect((await call('GET', `${cex}/endpoints/commands/thermostat`)).status).toBe(404);
  });

  it('answers at the bare /api/v1 too', async () => {
    const response = await call('GET', '/api/v1/endpoints/commands?endpointId=meter-005&commandTypes=alpha');
    expect(response.status).toBe(200);
    expect(response.body[0].endpointId).toBe('meter-005');
  });
});

describe('command invocation with --compat cex=1', async () => {
  const emulator = await startTestEmulator({ compat: { cex: '1' } });

  it('applies the first revision defaults when no parameter is given', async () => {
    const abort = new AbortController();
    const request = fetch(`${emulator.url}${cex}/endpoints/meter-001/commands/reboot`, {
      method: 'POST',
      body: '{}',
      signal: abort.signal,
    }).catch(() => undefined);
    let record: { createdAt: string; expiresAt?: string } | undefined;
    while (!record) {
      await sleep(20);
      record = COMMANDS.get(internalContext(emulator), '1');
    }
    abort.abort();
    await request;
    expect(Date.parse(record.expiresAt!) - Date.parse(record.createdAt)).toBe(60_000);
  });

  it('lists every type of the endpoints when commandTypes is left out, and filters when it is given', async () => {
    const call = api(emulator);
    for (const type of ['gamma', 'delta'])
      expect(
        (await call('POST', `${cex}/endpoints/meter-004/commands/${type}?waitTimeout=0`, { body: {} })).status,
      ).toBe(202);
    const types = async (query: string) => {
      const listed = await call('GET', `${cex}/endpoints/commands?endpointId=meter-004${query}`);
      expect(listed.status).toBe(200);
      return listed.body[0].commands.map((c: { commandType: string }) => c.commandType);
    };
    expect(await types('')).toEqual(['gamma', 'delta']);
    expect(await types('&commandTypes=')).toEqual(['gamma', 'delta']);
    expect(await types('&commandTypes=delta')).toEqual(['delta']);
  });
});
