import { internalContext } from '../../src/emulator.js';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/services/epr/endpoints.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, sleep, TestDevice } from './device.js';

describe('the KP1 gateway over MQTT', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const tokenStatus = (endpointId: string) =>
    (ENDPOINTS.get(internalContext(emulator), endpointId) as { tokenStatus: string }).tokenStatus;

  it('answers on <request>/status with the request QoS', async () => {
    const device = await TestDevice.connect(emulator);
    const qos0 = await device.request('kp1/smart-meter-v1/epmx/meter-001-token/get/keys');
    expect(qos0).toMatchObject({ ok: true, qos: 0 });
    expect(qos0.payload).toContain('serial');
    const qos1 = await device.request('kp1/smart-meter-v1/epmx/meter-001-token/get/keys', '', 1);
    expect(qos1).toMatchObject({ ok: true, qos: 1 });
  });

  it('moves the token from Inactive to Active on its first successful request, not on a failed one', async () => {
    const endpoint = await registerEndpoint(emulator);
    expect(endpoint.status).toBe('Inactive');
    const device = await TestDevice.connect(emulator);
    const failed = await device.request(`${endpoint.topic('epmx')}/update`, '{"bad key": 1}');
    expect(failed.ok).toBe(false);
    expect(tokenStatus(endpoint.endpointId)).toBe('Inactive');
    expect((await device.request(`${endpoint.topic('epmx')}/get`)).ok).toBe(true);
    expect(tokenStatus(endpoint.endpointId)).toBe('Active');
  });

  it('publishes no reply without a request id', async () => {
    const device = await TestDevice.connect(emulator);
    await device.publish('kp1/smart-meter-v1/epmx/meter-002-token/get');
    await device.publish('kp1/smart-meter-v1/epmx/meter-002-token/update', '{not json');
    // Requests of one connection are handled in order: once this reply is in, the two above were handled.
    await device.request('kp1/smart-meter-v1/epmx/meter-002-token/get/keys');
    await sleep(50);
    // Besides the reply: the first message made the connection speak for the endpoint, which is then told the
    // configuration and software it has not applied (test/gateway/cmx-connect.test.ts).
    expect(device.messages.map((m) => m.topic).sort()).toEqual([
      'kp1/smart-meter-v1/cmx/meter-002-token/config/json/status',
      'kp1/smart-meter-v1/cmx_ota/meter-002-token/config/json/status',
      'kp1/smart-meter-v1/epmx/meter-002-token/get/keys/1/status',
    ]);
  });

  describe('an error reply for every bad input, with nothing stored and the broker still serving', () => {
    const cases: Array<[string, string, string, number, RegExp]> = [
      [
        'an unknown application version',
        'kp1/no-such-version/epmx/meter-001-token/get',
        '',
        404,
        /no application version "no-such-version"/,
      ],
      ['an unknown token', 'kp1/smart-meter-v1/epmx/nobody-token/get', '', 401, /not registered/],
      [
        'a token of another application version',
        'kp1/smart-meter-v2/epmx/meter-001-token/get',
        '',
        403,
        /belongs to application version smart-meter-v1/,
      ],
      [
        'an unknown extension',
        'kp1/smart-meter-v1/nope/meter-001-token/get',
        '',
        404,
        /Unknown extension "nope"; this emulator speaks [a-z_, ]*\bepmx\b/,
      ],
      [
        'an unknown resource',
        'kp1/smart-meter-v1/epmx/meter-001-token/put',
        '',
        404,
        /no resource "put"; its resources: get, get\/keys/,
      ],
      ['a missing resource', 'kp1/smart-meter-v1/cex/meter-001-token', '', 404, /no resource ""/],
      ['malformed JSON', 'kp1/smart-meter-v1/epmx/meter-001-token/update', '{"a": ', 400, /not valid JSON/],
      ['an empty topic level', 'kp1/smart-meter-v1//meter-001-token/get', '', 400, /empty level/],
      [
        'metadata with a bad key',
        'kp1/smart-meter-v1/epmx/meter-001-token/update/keys',
        '{"no-dash": 1}',
        400,
        /letters, digits and underscores/,
      ],
      [
        'metadata that is not an object',
        'kp1/smart-meter-v1/epmx/meter-001-token/update',
        '[1]',
        400,
        /JSON object with at least one key/,
      ],
      ['an empty metadata object', 'kp1/smart-meter-v1/epmx/meter-001-token/update', '{}', 400, /at least one key/],
      [
        'repeated keys to delete',
        'kp1/smart-meter-v1/epmx/meter-001-token/delete/keys',
        '["a","a"]',
        400,
        /listed twice/,
      ],
      [
        'an unknown field in a command request',
        'kp1/smart-meter-v1/cex/meter-001-token/command/reboot',
        '{"observe":true,"x":1}',
        400,
        /unknown field x/,
      ],
      ['a bad command type', 'kp1/smart-meter-v1/cex/meter-001-token/command/re_boot', '{}', 400, /alphanumeric/],
      // 11/CEP: the command request MUST be a JSON object; a zero-length payload is an error.
      [
        'an empty command request',
        'kp1/smart-meter-v1/cex/meter-001-token/command/reboot',
        '',
        400,
        /command payload must be a JSON object \(at least \{\}\)/,
      ],
      [
        'results that are not an array',
        'kp1/smart-meter-v1/cex/meter-001-token/result/reboot',
        '{"id":1}',
        400,
        /non-empty array/,
      ],
      [
        'a result without a status code',
        'kp1/smart-meter-v1/cex/meter-001-token/result/reboot',
        '[{"id":1}]',
        400,
        /statusCode must be an integer/,
      ],
      [
        'a result for an unknown command',
        'kp1/smart-meter-v1/cex/meter-001-token/result/reboot',
        '[{"id":999999,"statusCode":200}]',
        404,
        /no command 999999/,
      ],
      [
        'a bad time zone',
        'kp1/smart-meter-v1/tsx/meter-001-token',
        '{"timezone":"Mars/Olympus"}',
        400,
        /IANA time zone/,
      ],
    ];
    for (const [what, path, payload, statusCode, reason] of cases) {
      it(what, async () => {
        const device = await TestDevice.connect(emulator);
        const before = internalContext(emulator).store.revision;
        const reply = await device.request(path, payload);
        expect(reply.topic).toBe(`${reply.requestTopic}/error`);
        expect(reply.payload).toEqual({ statusCode, reasonPhrase: expect.stringMatching(reason) });
        expect(internalContext(emulator).store.revision).toBe(before);
        expect((await device.request('kp1/smart-meter-v1/tsx/meter-001-token')).ok).toBe(true);
      });
    }
  });

  it('ignores what looks like its own replies, and topics outside kp1/', async () => {
    const device = await TestDevice.connect(emulator);
    await device.subscribe('kp1/smart-meter-v1/epmx/meter-003-token/#');
    await device.subscribe('other/#');
    await device.publish('kp1/smart-meter-v1/epmx/meter-003-token/get/9/status', '{}');
    await device.publish('other/topic', 'hello');
    await device.request('kp1/smart-meter-v1/epmx/meter-003-token/get/keys');
    await sleep(50);
    // Its own request comes back through its subscription, as on any broker; the reply-shaped publish is the
    // emulator's topic and was dropped (test/gateway/broker-rules.test.ts); the gateway answered only the request
    // (and, as the connection now speaks for the endpoint, pushed what it has not applied).
    expect(device.messages.map((m) => m.topic).sort()).toEqual([
      'kp1/smart-meter-v1/cmx/meter-003-token/config/json/status',
      'kp1/smart-meter-v1/cmx_ota/meter-003-token/config/json/status',
      'kp1/smart-meter-v1/epmx/meter-003-token/get/keys/1',
      'kp1/smart-meter-v1/epmx/meter-003-token/get/keys/1/status',
      'other/topic',
    ]);
  });

  it('prints the MQTT address in /_emu/health', async () => {
    const health = await call('GET', '/_emu/health');
    expect(health.body.mqtt).toMatchObject({ url: emulator.mqttUrl, port: emulator.mqttPort });
    expect(emulator.mqttUrl).toBe(`mqtt://127.0.0.1:${emulator.mqttPort}`);
  });
});
