import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DeviceConnectError,
  simulateDevice,
  SimulatorOptionsError,
  startEmulator,
  type DeviceEvent,
  type SimulatedDevice,
  type SimulateDeviceOptions,
} from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const running: SimulatedDevice[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((device) => device.stop()));
});

async function rulesFile(rules: unknown): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'simulator-test-')), 'rules.json');
  await writeFile(file, typeof rules === 'string' ? rules : JSON.stringify(rules));
  return file;
}

describe('simulateDevice against an emulator in the same process', async () => {
  const emulator = await startTestEmulator();
  const rest = api(emulator);
  const simulate = async (options: Omit<SimulateDeviceOptions, 'emulator'>) => {
    const device = await simulateDevice({ emulator, ...options });
    running.push(device);
    return device;
  };

  it(
    'answers per its rules and their templates; the device status and reason are recorded on the ' + 'command',
    async () => {
      const device = await simulate({
        appVersion: 'smart-meter-v1',
        token: 'meter-001-token',
        endpointId: 'meter-001',
        rules: {
          commands: {
            setTemp: {
              statusCode: 200,
              reasonPhrase: 'Set',
              payload: { setpoint: '{{payload.value}}', note: 'set to {{payload.value}} on {{endpointId}}' },
            },
            fail: { statusCode: 500, reasonPhrase: 'Heater broken' },
          },
          default: { statusCode: 404, reasonPhrase: 'Unknown command' },
        },
      });
      expect(device).toMatchObject({
        token: 'meter-001-token',
        appVersion: 'smart-meter-v1',
        endpointId: 'meter-001',
        mqttUrl: emulator.mqttUrl,
        answered: 0,
      });
      expect(await device.next('connected')).toMatchObject({
        token: 'meter-001-token',
        mqttUrl: emulator.mqttUrl,
        endpointId: 'meter-001',
      });

      const set = await rest('POST', '/cex/api/v1/endpoints/meter-001/commands/setTemp?waitTimeout=20', {
        body: { value: 21.5 },
      });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ setpoint: 21.5, note: 'set to 21.5 on meter-001' });
      const command = await device.next('command', (e) => e.commandType === 'setTemp');
      expect(command).toMatchObject({
        token: 'meter-001-token',
        payload: { value: 21.5 },
        commandId: expect.any(Number),
      });
      expect(await device.next('answered', (e) => e.commandType === 'setTemp')).toEqual({
        event: 'answered',
        token: 'meter-001-token',
        commandType: 'setTemp',
        commandId: command.commandId,
        statusCode: 200,
        reasonPhrase: 'Set',
        payload: { setpoint: 21.5, note: 'set to 21.5 on meter-001' },
      });

      expect(
        (await rest('POST', '/cex/api/v1/endpoints/meter-001/commands/fail?waitTimeout=20', { body: {} })).status,
      ).toBe(200);
      const failed = await device.next('answered', (e) => e.commandType === 'fail');
      const record = await rest('GET', `/cex/api/v1/endpoints/meter-001/commands/fail/${failed.commandId}`);
      expect(record.body).toMatchObject({ statusCode: 500, reasonPhrase: 'Heater broken' });
      expect(
        (await rest('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=20', { body: {} })).status,
      ).toBe(200);
      expect(await device.next('answered', (e) => e.commandType === 'reboot')).toMatchObject({
        statusCode: 404,
        reasonPhrase: 'Unknown command',
      });
      expect(device.answered).toBe(3);
    },
  );

  it('echoes the request payload with 200 by default; registers itself and publishes metadata when asked', async () => {
    const events: DeviceEvent[] = [];
    const device = await simulate({
      appVersion: 'tracker-v1',
      register: true,
      metadata: { sim: true },
      onEvent: (event) => events.push(event),
    });
    expect(device.endpointId).toEqual(expect.any(String));
    expect(device.token).toEqual(expect.any(String));
    // Applying 3.2.0 left nothing more to offer: that is pushed, after the handle came back or before.
    await device.next('software', (e) => e.version === '');
    // Everything before the handle came back went to onEvent too, and is kept in the device's events.
    expect(events.map((e) => e.event)).toEqual([
      'registered',
      'connected',
      'metadata',
      'config',
      'config-applied',
      'software',
      'software-applied',
      'software',
    ]);
    expect(device.events).toEqual(events);
    expect(events[0]).toMatchObject({ endpointId: device.endpointId, token: device.token, appVersion: 'tracker-v1' });

    const endpoint = await rest('GET', `/epr/api/v1/endpoints/${device.endpointId}?include=metadata`);
    expect(endpoint.body.metadata).toEqual({ sim: true, softwareVersion: '3.2.0' });
    const echoed = await rest('POST', `/cex/api/v1/endpoints/${device.endpointId}/commands/locate?waitTimeout=20`, {
      body: { precise: true, n: [1, 2] },
    });
    expect(echoed.status).toBe(200);
    expect(echoed.body).toEqual({ precise: true, n: [1, 2] });
  });

  it(
    'on start, answers the commands left outstanding for the types its rules name; an "ignore" rule leaves the ' +
      'caller with 202',
    async () => {
      const before = await rest('POST', '/cex/api/v1/endpoints/meter-002/commands/calibrate?waitTimeout=0', {
        body: { level: 3 },
      });
      expect(before.status).toBe(202);
      const device = await simulate({
        appVersion: 'smart-meter-v1',
        token: 'meter-002-token',
        rules: await rulesFile({
          commands: { calibrate: { payload: { calibrated: '{{payload.level}}' } }, slow: { ignore: true } },
        }),
      });
      expect((await device.next('answered', (e) => e.commandType === 'calibrate')).payload).toEqual({ calibrated: 3 });
      expect((await rest('GET', new URL(before.headers.get('location')!).pathname)).body).toMatchObject({
        status: 'executed',
        responsePayload: { calibrated: 3 },
      });

      const slow = rest('POST', '/cex/api/v1/endpoints/meter-002/commands/slow?waitTimeout=1', { body: {} });
      const ignored = await device.next('ignored', (e) => e.commandType === 'slow');
      expect((await slow).status).toBe(202);
      expect(device.events.some((e) => e.event === 'answered' && e.commandId === ignored.commandId)).toBe(false);
    },
  );

  it('decide answers instead of the rules, given the rule answer as a suggestion', async () => {
    const device = await simulate({
      appVersion: 'smart-meter-v1',
      token: 'meter-003-token',
      rules: { commands: { ping: { statusCode: 200, payload: { pong: '{{payload.x}}' } } } },
      decide: async (command, suggested) => ({
        ...suggested,
        statusCode: 201,
        reasonPhrase: 'Made',
        payload: { suggested: suggested.payload, type: command.commandType },
      }),
    });
    const response = await rest('POST', '/cex/api/v1/endpoints/meter-003/commands/ping?waitTimeout=20', {
      body: { x: 1 },
    });
    expect(response.body).toEqual({ suggested: { pong: 1 }, type: 'ping' });
    expect(await device.next('answered')).toMatchObject({ statusCode: 201, reasonPhrase: 'Made' });
  });

  it(
    'sends a telemetry sample every interval; each one reported accepted is readable at once through ' +
      'time-series/last',
    async () => {
      let made = 0;
      const device = await simulate({
        appVersion: 'tracker-v1',
        token: 'tracker-001-token',
        telemetry: { sample: () => ({ n: ++made, timestamp: 1714146067000 + made }), intervalMs: 10 },
      });
      const third = await device.next('telemetry', (e) => e.sample.n === 3);
      expect(third).toEqual({
        event: 'telemetry',
        token: 'tracker-001-token',
        sample: { n: 3, timestamp: 1714146067003 },
        accepted: true,
      });
      const last = await rest(
        'GET',
        '/epts/api/v1/applications/tracker/time-series/last?endpointId=tracker-001&timeSeriesName=n',
      );
      expect(last.status).toBe(200);
      const [point] = last.body['tracker-001'].n;
      // The third sample at least; a later one may have been stored since.
      expect(point.values.value).toBeGreaterThanOrEqual(3);
      expect(Date.parse(point.timestamp)).toBe(1714146067000 + point.values.value);
      const reported = device.events.filter((e) => e.event === 'telemetry');
      expect(reported.map((e) => e.sample.n)).toEqual(expect.arrayContaining([1, 2, 3]));
      expect(device.events.some((e) => e.event === 'error')).toBe(false);
    },
  );

  it('a telemetry spec makes samples with a timestamp', async () => {
    const device = await simulate({
      appVersion: 'tracker-v1',
      token: 'tracker-002-token',
      telemetry: { sample: 'lat=52.0..52.6,state=on|off,n=seq', intervalMs: 10 },
    });
    const { sample } = await device.next('telemetry');
    expect(sample).toMatchObject({ n: 1, timestamp: expect.any(Number), state: expect.stringMatching(/^(on|off)$/) });
    expect(sample.lat).toBeGreaterThanOrEqual(52);
    expect(sample.lat).toBeLessThanOrEqual(52.6);
  });

  it('stop() disconnects: the endpoint goes offline, later waits reject, and commands stay pending', async () => {
    const device = await simulate({
      appVersion: 'tracker-v1',
      token: 'tracker-003-token',
      config: false,
      software: false,
    });
    const online = async () => (await rest('GET', '/_emu/health')).body.mqtt.onlineEndpoints as number;
    const before = await online();
    await device.stop();
    await device.stop();
    expect(await online()).toBe(before - 1);
    await expect(device.next('command')).rejects.toThrow(
      /No "command" event: the device tracker-003-token was stopped \(events so far: connected\)/,
    );
    expect(
      (await rest('POST', '/cex/api/v1/endpoints/tracker-003/commands/ping?waitTimeout=0', { body: {} })).status,
    ).toBe(202);
  });

  it('next() with timeoutMs rejects naming the events seen', async () => {
    const device = await simulate({
      appVersion: 'tracker-v1',
      token: 'tracker-004-token',
      config: false,
      software: false,
    });
    await expect(device.next('answered', undefined, { timeoutMs: 20 })).rejects.toThrow(
      'No "answered" event: none within 20 ms (events so far: connected).',
    );
  });

  it('refuses options it cannot run with before connecting, naming every problem', async () => {
    const invalid = simulateDevice({
      emulator,
      appVersion: 'smart-meter-v1',
      token: 'meter-001-token',
      rules: {
        commands: { reboot: { statusCode: '200', dely: 5 }, 'bad-type': {} },
        default: { delayMs: -1 },
      } as never,
    });
    await expect(invalid).rejects.toThrow(SimulatorOptionsError);
    const message = await invalid.catch((err: Error) => err.message);
    expect(message).toContain('/commands/reboot/statusCode: must be integer');
    expect(message).toContain('unknown field "dely"');
    expect(message).toContain('command type "bad-type" is not alphanumeric');
    expect(message).toContain('/default/delayMs: must be >= 0');
    const notJson = await rulesFile('{');
    await expect(
      simulateDevice({ emulator, appVersion: 'smart-meter-v1', token: 'meter-001-token', rules: notJson }),
    ).rejects.toThrow(`Cannot read the rules file ${notJson}`);
    await expect(
      simulateDevice({
        emulator,
        appVersion: 'smart-meter-v1',
        token: 'meter-001-token',
        telemetry: { sample: 'temp=30..20' },
      }),
    ).rejects.toThrow('goes down');
    await expect(
      simulateDevice({
        emulator,
        appVersion: 'smart-meter-v1',
        token: 'meter-001-token',
        telemetry: { sample: 'n=seq', intervalMs: 0 },
      }),
    ).rejects.toThrow('intervalMs');
    await expect(simulateDevice({ emulator, appVersion: 'smart-meter-v1' })).rejects.toThrow('Give the endpoint token');
    await expect(simulateDevice({ appVersion: 'smart-meter-v1', token: 'meter-001-token' })).rejects.toThrow(
      'Give the emulator',
    );
  });

  it(
    'fails with DeviceConnectError when it cannot connect, or the token belongs to another application ' + 'version',
    async () => {
      const refused = await simulateDevice({
        mqttUrl: 'mqtt://127.0.0.1:9',
        appVersion: 'smart-meter-v1',
        token: 'meter-001-token',
      }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(DeviceConnectError);
      expect((refused as DeviceConnectError).failures).toEqual([
        { token: 'meter-001-token', message: expect.stringContaining('Cannot connect to mqtt://127.0.0.1:9') },
      ]);
      const wrongVersion = simulateDevice({ emulator, appVersion: 'smart-meter-v1', token: 'meter-004-token' });
      await expect(wrongVersion).rejects.toThrow(/403 .*smart-meter-v2/);
    },
  );
});

describe('simulateDevice when the emulator goes away or wants tokens', () => {
  it('reports "disconnected" and stops when the connection is lost', async () => {
    const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
    const device = await simulateDevice({ emulator, appVersion: 'smart-meter-v1', token: 'meter-001-token' });
    const waiting = device.next('command');
    await emulator.stop();
    expect(await device.next('disconnected')).toMatchObject({
      token: 'meter-001-token',
      message: expect.stringContaining('was lost'),
    });
    await expect(waiting).rejects.toThrow(/was lost/);
  });

  it('registers against an emulator with auth on, fetching a test token unless one is given', async () => {
    const emulator = await startTestEmulator({ auth: 'on' });
    // By URL, the control plane's admin token must be given; the handle carries its own.
    await expect(simulateDevice({ emulator: emulator.url, appVersion: 'tracker-v1', register: true })).rejects.toThrow(
      /admin token/,
    );
    const device = await simulateDevice({
      emulator: emulator.url,
      adminToken: emulator.adminToken,
      appVersion: 'tracker-v1',
      register: true,
      endpointId: 'authed-sim-1',
    });
    running.push(device);
    expect(device.endpointId).toBe('authed-sim-1');
    running.push(
      await simulateDevice({ emulator, appVersion: 'tracker-v1', register: true, endpointId: 'authed-sim-2' }),
    );
    expect(device.mqttUrl).toBe(emulator.mqttUrl);
    await expect(
      simulateDevice({ emulator, appVersion: 'tracker-v1', register: true, accessToken: 'not-a-jwt' }),
    ).rejects.toThrow(/401/);
  });
});
