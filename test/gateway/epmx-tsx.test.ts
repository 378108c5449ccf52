import { internalContext } from '../../src/emulator.js';
import { describe, expect, it } from 'vitest';
import { localTime } from '../../src/gateway/extensions/kp1-tsx/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, TestDevice } from './device.js';

describe('epmx: endpoint metadata over KP1, seen by the endpoint register', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const registered = (endpointId: string) => call('GET', `/epr/api/v1/endpoints/${endpointId}?include=metadata`);

  it('replaces, merges, reads and deletes metadata', async () => {
    const endpoint = await registerEndpoint(emulator, 'smart-meter-v1', { serial: 'S-1', model: 'M' });
    const device = await TestDevice.connect(emulator);
    const base = endpoint.topic('epmx');
    const before = (await registered(endpoint.endpointId)).body.metadataUpdatedDate;

    expect(await device.request(`${base}/update`, { serial: 'S-2', fw: '1.0' })).toMatchObject({
      ok: true,
      payload: undefined,
    });
    let seen = (await registered(endpoint.endpointId)).body;
    expect(seen.metadata).toEqual({ serial: 'S-2', fw: '1.0' });
    expect(seen.metadataUpdatedDate > before).toBe(true);

    expect(
      (await device.request(`${base}/update/keys`, { fw: '1.1', location: { city: 'Oslo' }, note: null })).ok,
    ).toBe(true);
    expect((await registered(endpoint.endpointId)).body.metadata).toEqual({
      serial: 'S-2',
      fw: '1.1',
      location: { city: 'Oslo' },
      note: null,
    });

    expect((await device.request(`${base}/get`)).payload).toEqual({
      serial: 'S-2',
      fw: '1.1',
      location: { city: 'Oslo' },
      note: null,
    });
    expect((await device.request(`${base}/get`, {})).payload).toHaveProperty('serial');
    expect((await device.request(`${base}/get`, { keys: ['fw', 'missing'] })).payload).toEqual({ fw: '1.1' });
    expect((await device.request(`${base}/get/keys`)).payload).toEqual(['serial', 'fw', 'location', 'note']);

    expect((await device.request(`${base}/delete/keys`, ['note', 'location', 'never_there'])).ok).toBe(true);
    seen = (await registered(endpoint.endpointId)).body;
    expect(seen.metadata).toEqual({ serial: 'S-2', fw: '1.1' });
  });

  it('answers request id 0, merges an array of objects in order, and ignores what get/keys is sent', async () => {
    const endpoint = await registerEndpoint(emulator, 'smart-meter-v1', { serial: 'S-3' });
    const device = await TestDevice.connect(emulator);
    const base = endpoint.topic('epmx');
    // The platform's tutorial clients count request ids from 0.
    const reply = device.waitFor((m) => m.topic === `${base}/get/0/status`);
    await device.publish(`${base}/get/0`, {});
    expect((await reply).payload).toEqual({ serial: 'S-3' });
    // The platform's Raspberry Pi client sends [{...}].
    const merged = await device.request(`${base}/update/keys`, [{ model: 'RPi', fw: '1' }, { fw: '2' }]);
    expect(merged).toMatchObject({ ok: true, payload: undefined });
    expect((await registered(endpoint.endpointId)).body.metadata).toEqual({ serial: 'S-3', model: 'RPi', fw: '2' });
    expect((await device.request(`${base}/get/keys`, 'not json at all')).payload).toEqual(['serial', 'model', 'fw']);
    expect((await device.request(`${base}/update/keys`, [{ ok: 1 }, 2])).payload).toMatchObject({
      statusCode: 400,
      reasonPhrase: expect.stringContaining('Metadata [1]'),
    });
  });

  it('refuses a payload that is not UTF-8, and changes nothing', async () => {
    const endpoint = await registerEndpoint(emulator, 'smart-meter-v1', { serial: 'S-4' });
    const device = await TestDevice.connect(emulator);
    const invalid = Buffer.concat([Buffer.from('{"serial":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const reply = await device.request(`${endpoint.topic('epmx')}/update/keys`, invalid);
    expect(reply.payload).toEqual({ statusCode: 400, reasonPhrase: expect.stringMatching(/not valid UTF-8/) });
    expect((await registered(endpoint.endpointId)).body.metadata).toEqual({ serial: 'S-4' });
  });

  it('keeps metadata unchanged when the request is refused', async () => {
    const endpoint = await registerEndpoint(emulator, 'smart-meter-v1', { serial: 'S-9' });
    const device = await TestDevice.connect(emulator);
    const reply = await device.request(`${endpoint.topic('epmx')}/update/keys`, { good: 1, 'bad.key': 2 });
    expect(reply.payload).toMatchObject({ statusCode: 400, reasonPhrase: expect.stringContaining('bad.key') });
    expect((await registered(endpoint.endpointId)).body.metadata).toEqual({ serial: 'S-9' });
  });
});

describe('tsx: the time', async () => {
  const emulator = await startTestEmulator();

  it('answers epoch milliseconds and ISO 8601 UTC, and the local time of a named zone', async () => {
    const device = await TestDevice.connect(emulator);
    const before = Date.now();
    const plain = await device.request('kp1/tracker-v1/tsx/tracker-001-token');
    expect(plain.payload.timestamp).toBeGreaterThanOrEqual(before);
    expect(new Date(plain.payload.time).getTime()).toBe(plain.payload.timestamp);
    const zoned = await device.request('kp1/tracker-v1/tsx/tracker-001-token', { timezone: 'Asia/Kolkata' });
    expect(zoned.payload).toMatchObject({ timezone: 'Asia/Kolkata', localTime: expect.stringMatching(/\+05:30$/) });
    expect(Date.parse(zoned.payload.localTime)).toBe(zoned.payload.timestamp);
  });

  it('formats offsets on both sides of UTC', () => {
    const at = new Date('2024-01-15T12:00:00.250Z');
    expect(localTime(at, 'America/St_Johns')).toBe('2024-01-15T08:30:00.250-03:30');
    expect(localTime(at, 'Europe/Berlin')).toBe('2024-01-15T13:00:00.250+01:00');
    expect(localTime(at, 'UTC')).toBe('2024-01-15T12:00:00.250+00:00');
  });
});

describe('the KP1 HTTP binding', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('reads the body as JSON whatever the Content-Type, and answers with the payload', async () => {
    const endpoint = await registerEndpoint(emulator, 'tracker-v1', { a: 1 });
    const path = `/${endpoint.topic('epmx')}`;
    expect((await call('POST', `${path}/update/keys`, { rawBody: '{"b": 2}' })).status).toBe(200);
    expect(
      (await call('POST', `${path}/update/keys`, { rawBody: '{"c": 3}', headers: { 'content-type': 'text/plain' } }))
        .status,
    ).toBe(200);
    const keys = await call('POST', `${path}/get/keys`);
    expect(keys).toMatchObject({ status: 200, body: ['a', 'b', 'c'] });
    const time = await call('POST', `/kp1/tracker-v1/tsx/${endpoint.token}`);
    expect(time.status).toBe(200);
    expect(time.body).toHaveProperty('timestamp');
  });

  it('turns the KP1 status code into the HTTP status', async () => {
    const bad = await call('POST', '/kp1/tracker-v1/epmx/tracker-002-token/update', { rawBody: '{oops' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ statusCode: 400, reasonPhrase: expect.stringContaining('not valid JSON') });
    expect((await call('POST', '/kp1/tracker-v1/epmx/nobody/get')).status).toBe(401);
    expect((await call('POST', '/kp1/tracker-v1/nope/tracker-002-token/get')).status).toBe(404);
    expect((await call('POST', '/kp1/tracker-v1')).status).toBe(400);
  });

  it('takes POST only', async () => {
    const response = await call('GET', '/kp1/tracker-v1/tsx/tracker-002-token');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.body.message).toMatch(/POST only/);
  });

  it('activates the token', async () => {
    const endpoint = await registerEndpoint(emulator, 'tracker-v1');
    await call('POST', `/kp1/tracker-v1/tsx/${endpoint.token}`);
    expect(
      (internalContext(emulator).store.get('endpoints', endpoint.endpointId) as { tokenStatus: string }).tokenStatus,
    ).toBe('Active');
  });
});
