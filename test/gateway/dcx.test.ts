import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, TestDevice } from './device.js';

const SM = '/epts/api/v1/applications/smart-meter/time-series';

/** Polls a condition until it holds: a device's sample without a request id gets no reply to wait for. */
async function eventually<T>(read: () => Promise<T>, holds: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('dcx: data samples become time series points', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const last = async (endpointId: string, names: string) =>
    (await call('GET', `${SM}/last?endpointId=${endpointId}&timeSeriesName=${names}`)).body[endpointId];
  const config = async () =>
    (await call('GET', '/epts/api/v1/time-series/config?applicationNames=smart-meter')).body['smart-meter'];

  it('reads the time from ts (ISO 8601) or timestamp (epoch ms), else the receive time', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    const before = Date.now();
    const reply = await device.request(`${endpoint.topic('dcx')}/json`, [
      { ts: '2019-04-26T15:41:07+0000', humidity: 40 },
      { timestamp: Date.UTC(2019, 3, 26, 15, 42), humidity: 41 },
      { humidity: 42 },
    ]);
    // Spec 4: the success reply has a zero-length payload.
    expect(reply).toMatchObject({ ok: true, payload: undefined });
    expect(device.onTopic(`${reply.requestTopic}/status`)).toHaveLength(1);
    const points = (
      await call(
        'GET',
        `${SM}/data?endpointId=${endpoint.endpointId}&timeSeriesName=humidity&fromDate=2019-01-01T00:00:00Z` +
          `&toDate=2100-01-01T00:00:00Z`,
      )
    ).body[0][endpoint.endpointId].humidity;
    expect(points.slice(0, 2)).toEqual([
      { timestamp: '2019-04-26T15:41:07.000Z', values: { value: 40 } },
      { timestamp: '2019-04-26T15:42:00.000Z', values: { value: 41 } },
    ]);
    expect(points[2].values).toEqual({ value: 42 });
    expect(Date.parse(points[2].timestamp)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(points[2].timestamp)).toBeLessThanOrEqual(Date.now());
  });

  it('defines a series with its first sample, and adds value names a later sample brings', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    const topic = `${endpoint.topic('dcx')}/json`;
    expect(
      (await device.request(topic, { ts: '2024-01-01T00:00:00Z', pressure: 1013.2, wind: { speed: 5, dir: 'N' } })).ok,
    ).toBe(true);
    expect(await config()).toEqual(
      expect.arrayContaining([
        { name: 'pressure', values: ['value'] },
        { name: 'wind', values: ['speed', 'dir'] },
      ]),
    );
    expect((await device.request(topic, { ts: '2024-01-01T00:01:00Z', wind: { gust: 9 } })).ok).toBe(true);
    expect((await config()).find((d: { name: string }) => d.name === 'wind')).toEqual({
      name: 'wind',
      values: ['speed', 'dir', 'gust'],
    });
    expect(await last(endpoint.endpointId, 'pressure,wind')).toEqual({
      pressure: [{ timestamp: '2024-01-01T00:00:00.000Z', values: { value: 1013.2 } }],
      wind: [{ timestamp: '2024-01-01T00:01:00.000Z', values: { gust: 9 } }],
    });
  });

  it('fits samples into a series the fixtures define (consumption: kwh, tariff)', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    expect(
      (
        await device.request(`${endpoint.topic('dcx')}/json`, {
          timestamp: 1_700_000_000_000,
          consumption: { kwh: 3.2, tariff: 'night' },
        })
      ).ok,
    ).toBe(true);
    expect((await last(endpoint.endpointId, 'consumption')).consumption).toEqual([
      { timestamp: '2023-11-14T22:13:20.000Z', values: { kwh: 3.2, tariff: 'night' } },
    ]);
    expect((await config()).find((d: { name: string }) => d.name === 'consumption').values).toEqual(['kwh', 'tariff']);
  });

  it('takes plain/<metric>: a bare number or string, at the receive time', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    const plain = (metric: string, body: string) => device.request(`${endpoint.topic('dcx')}/plain/${metric}`, body);
    expect((await plain('level', '17.25')).ok).toBe(true);
    expect((await plain('state', 'on')).ok).toBe(true);
    expect((await last(endpoint.endpointId, 'level,state')).level[0].values).toEqual({ value: 17.25 });
    expect((await last(endpoint.endpointId, 'state')).state[0].values).toEqual({ value: 'on' });
    expect((await plain('state', '"off"')).ok).toBe(true);
    expect((await last(endpoint.endpointId, 'state')).state[0].values).toEqual({ value: 'off' });
    const empty = await plain('state', '');
    expect(empty.payload).toMatchObject({
      statusCode: 400,
      reasonPhrase: expect.stringMatching(/plain payload is empty/),
    });
  });

  it.each([
    ['nothing', '', /json payload is empty/],
    ['both ts and timestamp', { ts: '2024-01-01T00:00:00Z', timestamp: 1, rain: 1 }, /both ts and timestamp/],
    ['a ts that is no time', { ts: 'noon', rain: 1 }, /ts must be epoch milliseconds or an ISO 8601 datetime/],
    ['a timestamp out of range', { timestamp: 1e20, rain: 1 }, /timestamp must be epoch milliseconds/],
    ['only a time', { ts: '2024-01-01T00:00:00Z' }, /no values besides its time/],
    ['an empty object value', { rain: {} }, /rain is an empty object/],
    ['a field name with a comma', { 'a,b': 1 }, /cannot name a time series/],
  ])('refuses %s with a reason, and stores nothing of the batch', async (_what, payload, reason) => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    // A bad sample object goes after a good one: the good one must not be stored either.
    const batch = typeof payload === 'object' && !Array.isArray(payload) ? [{ rain: 5 }, payload] : payload;
    const reply = await device.request(`${endpoint.topic('dcx')}/json`, batch);
    expect(reply.ok).toBe(false);
    expect(reply.payload).toEqual({ statusCode: 400, reasonPhrase: expect.stringMatching(reason) });
    expect((await config()).some((d: { name: string }) => d.name === 'rain')).toBe(false);
  });

  it('accepts samples of any JSON type (2/DCP); only objects feed time series', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    const topic = `${endpoint.topic('dcx')}/json`;
    expect(await device.request(topic, 42)).toMatchObject({ ok: true, payload: undefined });
    const batch = [{ ts: '2024-02-01T00:00:00Z', snow: 3 }, 15, ['an', 'array', 13], 'text', null];
    expect(await device.request(topic, batch)).toMatchObject({ ok: true, payload: undefined });
    expect(await last(endpoint.endpointId, 'snow')).toEqual({
      snow: [{ timestamp: '2024-02-01T00:00:00.000Z', values: { value: 3 } }],
    });
  });

  it(
    'auto-extracts numeric fields as auto~<field> where the settings say autoExtract (the default fixtures ' + 'do)',
    async () => {
      // The exchange of the platform's tutorial "Collecting data from a device": no request id, no subscription.
      const endpoint = await registerEndpoint(emulator);
      const device = await TestDevice.connect(emulator);
      await device.publish(`${endpoint.topic('dcx')}/json`, {
        timestamp: 1_714_146_067_123,
        temperature: 21,
        humidity: 40,
        label: 'x',
      });
      const points = await eventually(
        () => last(endpoint.endpointId, 'auto~temperature,auto~humidity'),
        (value) => value !== undefined && value['auto~humidity'] !== undefined,
      );
      expect(points).toEqual({
        'auto~temperature': [{ timestamp: '2024-04-26T15:41:07.123Z', values: { value: 21 } }],
        'auto~humidity': [{ timestamp: '2024-04-26T15:41:07.123Z', values: { value: 40 } }],
      });
      expect((await config()).some((d: { name: string }) => d.name === 'auto~label')).toBe(false);
    },
  );

  it(
    "does not auto-extract when the version's epts settings say autoExtract: false (per-field series " + 'asked)',
    async () => {
      const settings = await call(
        'PUT',
        '/tekton/api/v1/app-configs/applications/smart-meter/app-versions/smart-meter-v2',
        {
          body: { epts: { autoExtract: false, fieldSeries: true } },
        },
      );
      expect(settings.status).toBeLessThan(300);
      const endpoint = await registerEndpoint(emulator, 'smart-meter-v2');
      const device = await TestDevice.connect(emulator);
      expect((await device.request(`${endpoint.topic('dcx')}/json`, { ts: '2024-03-01T00:00:00Z', gust: 12 })).ok).toBe(
        true,
      );
      expect(await last(endpoint.endpointId, 'gust')).toEqual({
        gust: [{ timestamp: '2024-03-01T00:00:00.000Z', values: { value: 12 } }],
      });
      expect((await config()).some((d: { name: string }) => d.name === 'auto~gust')).toBe(false);
    },
  );

  it('works over the HTTP binding too', async () => {
    const endpoint = await registerEndpoint(emulator);
    const response = await call('POST', `/kp1/smart-meter-v1/dcx/${endpoint.token}/json`, {
      rawBody: JSON.stringify([{ ts: '2024-02-02T00:00:00Z', voltage: 231 }]),
    });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect((await last(endpoint.endpointId, 'voltage')).voltage).toEqual([
      { timestamp: '2024-02-02T00:00:00.000Z', values: { value: 231 } },
    ]);
  });

  it(
    'a client that only publishes samples (no request id, no subscription) is readable at once and receives its ' +
      'commands',
    async () => {
      const endpoint = await registerEndpoint(emulator);
      const device = await TestDevice.connect(emulator);
      // As the platform's tutorial client: samples with the token only, never a request id, never SUBSCRIBE.
      await device.publish(`${endpoint.topic('dcx')}/json`, [{ timestamp: Date.UTC(2024, 5, 1), voltage: 229.5 }], 1);
      const seen = await eventually(
        () => last(endpoint.endpointId, 'voltage'),
        (bySeries) => bySeries.voltage.length > 0,
      );
      expect(seen.voltage).toEqual([{ timestamp: '2024-06-01T00:00:00.000Z', values: { value: 229.5 } }]);

      const invocation = call('POST', `/cex/api/v1/endpoints/${endpoint.endpointId}/commands/reboot?waitTimeout=10`, {
        body: { delay: 1 },
      });
      const push = await device.waitFor((m) => m.topic === `${endpoint.topic('cex')}/command/reboot/status`, 8000);
      const [command] = push.payload;
      expect(command.payload).toEqual({ delay: 1 });
      await device.publish(`${endpoint.topic('cex')}/result/reboot`, [
        { id: command.id, statusCode: 200, payload: { rebooted: true } },
      ]);
      const answered = await invocation;
      expect(answered.status).toBe(200);
      expect(answered.body).toEqual({ rebooted: true });
      expect(device.messages.every((m) => !m.topic.includes('/dcx/'))).toBe(true);
    },
  );
});
