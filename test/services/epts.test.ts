import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const EPTS = '/epts/api/v1';
const SM = `${EPTS}/applications/smart-meter/time-series`;

const at = (minute: number) => `2024-04-26T10:${String(minute).padStart(2, '0')}:00.000Z`;
const voltage = (minute: number, value: unknown) => ({ timestamp: at(minute), values: { value } });

describe('endpoint time series', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const put = (body: unknown, path = `${SM}/data`) => call('PUT', path, { body });

  describe('GET /time-series/config', () => {
    it("lists every application of the tenant with its definitions (the fixtures')", async () => {
      const config = await call('GET', `${EPTS}/time-series/config`);
      expect(config.status).toBe(200);
      expect(config.body).toEqual({
        'smart-meter': [
          { name: 'consumption', values: ['kwh', 'tariff'] },
          { name: 'voltage', values: ['value'] },
        ],
        tracker: [
          { name: 'battery', values: ['value'] },
          { name: 'position', values: ['lat', 'lon', 'speed'] },
        ],
      });
    });

    it('narrows to applicationNames (comma-separated); an unknown or foreign application is 404', async () => {
      expect((await call('GET', `${EPTS}/time-series/config?applicationNames=tracker`)).body).toEqual({
        tracker: [
          { name: 'battery', values: ['value'] },
          { name: 'position', values: ['lat', 'lon', 'speed'] },
        ],
      });
      expect(
        Object.keys((await call('GET', `${EPTS}/time-series/config?applicationNames=tracker,smart-meter`)).body),
      ).toEqual(['tracker', 'smart-meter']);
      const foreign = await call('GET', `${EPTS}/time-series/config?applicationNames=thermostat`);
      expect(foreign.status).toBe(404);
      expect(foreign.body.message).toMatch(/no application thermostat/);
    });
  });

  describe('PUT /applications/{applicationName}/time-series/data (deprecated)', () => {
    it('writes points, keeps explicit nulls, and answers 204', async () => {
      const written = await put({
        'meter-001': {
          voltage: [voltage(0, 230.1), voltage(1, null)],
          consumption: [{ timestamp: at(0), values: { kwh: 1.5, tariff: null } }],
        },
        'meter-002': { voltage: [voltage(0, 229)] },
      });
      expect(written.status, written.text).toBe(204);
      expect(written.text).toBe('');
      const last = await call('GET', `${SM}/last?endpointId=meter-001,meter-002&timeSeriesName=voltage,consumption`);
      expect(last.body).toEqual({
        'meter-001': {
          voltage: [{ timestamp: at(1), values: { value: null } }],
          consumption: [{ timestamp: at(0), values: { kwh: 1.5, tariff: null } }],
        },
        'meter-002': { voltage: [{ timestamp: at(0), values: { value: 229 } }], consumption: [] },
      });
    });

    it('overwrites a point with an equal timestamp, in one body and across writes', async () => {
      await put({ 'meter-003': { voltage: [voltage(5, 1), voltage(5, 2)] } });
      await put({ 'meter-003': { voltage: [{ timestamp: '2024-04-26T12:05:00+02:00', values: { value: 3 } }] } });
      const data = await call(
        'GET',
        `${SM}/data?endpointId=meter-003&timeSeriesName=voltage&fromDate=${at(0)}&toDate=${at(59)}`,
      );
      expect(data.body).toEqual([{ 'meter-003': { voltage: [{ timestamp: at(5), values: { value: 3 } }] } }]);
    });

    it('keeps points in time order whatever the order they were written in', async () => {
      await put({ 'meter-004': { voltage: [voltage(30, 'c'), voltage(10, 'a')] } });
      await put({ 'meter-004': { voltage: [voltage(20, 'b')] } });
      const data = await call(
        'GET',
        `${SM}/data?endpointId=meter-004&timeSeriesName=voltage&fromDate=${at(0)}&toDate=${at(59)}`,
      );
      expect(data.body[0]['meter-004'].voltage.map((p: { values: { value: string } }) => p.values.value)).toEqual([
        'a',
        'b',
        'c',
      ]);
    });

    it.each([
      ['an array', [1], /the body must be a JSON object/],
      ['a string', 'text', /the body must be a JSON object/],
      ['a series that is not an array', { 'meter-001': { voltage: {} } }, /meter-001.voltage must be an array/],
      ['a point without values', { 'meter-001': { voltage: [{ timestamp: at(0) }] } }, /values is required/],
      [
        'a point with an extra field',
        { 'meter-001': { voltage: [{ ...voltage(0, 1), extra: 1 }] } },
        /unknown field extra/,
      ],
      [
        'an undefined series',
        { 'meter-001': { humidity: [voltage(0, 1)] } },
        /no time series humidity; it defines consumption, voltage/,
      ],
      [
        'an unknown value name',
        { 'meter-001': { voltage: [{ timestamp: at(0), values: { value: 1, unit: 'V' } }] } },
        /unit, not a value of time series voltage/,
      ],
      [
        'a missing value',
        { 'meter-001': { consumption: [{ timestamp: at(0), values: { kwh: 1 } }] } },
        /lacks tariff .* send null/,
      ],
      [
        'a timestamp that is not ISO 8601',
        { 'meter-001': { voltage: [{ timestamp: 'yesterday', values: { value: 1 } }] } },
        /timestamp must be an ISO 8601 datetime/,
      ],
      [
        'a timestamp without a zone',
        { 'meter-001': { voltage: [{ timestamp: '2024-04-26T10:00:00', values: { value: 1 } }] } },
        /timestamp must be an ISO 8601 datetime/,
      ],
    ])('refuses %s with 400', async (_what, body, message) => {
      const response = await put(body);
      expect(response.status, response.text).toBe(400);
      expect(response.body.message).toMatch(message);
    });

    it('answers 404 naming endpoints that are absent or of another application, and stores nothing', async () => {
      const body = {
        'meter-005': { voltage: [voltage(40, 1)] },
        'tracker-001': { voltage: [voltage(40, 2)] },
        ghost: { voltage: [voltage(40, 3)] },
      };
      const response = await put(body);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('No endpoint tracker-001, ghost in application smart-meter.');
      expect((await call('GET', `${SM}/last?endpointId=meter-005&timeSeriesName=voltage`)).body).toEqual({
        'meter-005': { voltage: [] },
      });
      expect((await put({}, `${EPTS}/applications/no-such-app/time-series/data`)).status).toBe(404);
    });

    it('stores nothing of a body with one bad point', async () => {
      const response = await put({
        'meter-006': { voltage: [voltage(1, 1), { timestamp: 'x', values: { value: 2 } }] },
      });
      expect(response.status).toBe(400);
      expect((await call('GET', `${SM}/last?endpointId=meter-006&timeSeriesName=voltage`)).body).toEqual({
        'meter-006': { voltage: [] },
      });
    });
  });

  describe('PUT /app-versions/{appVersionName}/time-series/data (the replacement)', () => {
    it('takes the same body for endpoints of that version', async () => {
      const written = await put(
        { 'tracker-002': { battery: [{ timestamp: at(3), values: { value: 88 } }] } },
        `${EPTS}/app-versions/tracker-v1/time-series/data`,
      );
      expect(written.status, written.text).toBe(204);
      const last = await call(
        'GET',
        `${EPTS}/applications/tracker/time-series/last?endpointId=tracker-002&timeSeriesName=battery`,
      );
      expect(last.body['tracker-002'].battery).toEqual([{ timestamp: at(3), values: { value: 88 } }]);
    });

    it('answers 404 for an endpoint of another version, and for an unknown or foreign version', async () => {
      const other = await put(
        { 'meter-001': { voltage: [voltage(0, 1)] } },
        `${EPTS}/app-versions/smart-meter-v2/time-series/data`,
      );
      expect(other.status).toBe(404);
      expect(other.body.message).toBe('No endpoint meter-001 in application version smart-meter-v2.');
      expect((await put({}, `${EPTS}/app-versions/nope/time-series/data`)).status).toBe(404);
      expect((await put({}, `${EPTS}/app-versions/thermostat-v1/time-series/data`)).status).toBe(404);
    });

    it('checks the body like the deprecated form', async () => {
      const response = await put(
        { 'tracker-002': { battery: [{ timestamp: at(3), values: {} }] } },
        `${EPTS}/app-versions/tracker-v1/time-series/data`,
      );
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/lacks value/);
    });
  });

  describe('GET .../time-series/last', async () => {
    const own = await startTestEmulator();
    const call = api(own);
    await api(own)('PUT', `${SM}/data`, {
      body: {
        'meter-001': { voltage: [voltage(1, 1), voltage(2, 2), voltage(3, 3)] },
        'meter-002': { consumption: [{ timestamp: at(4), values: { kwh: 4, tariff: 'day' } }] },
      },
    });

    it('without endpointId: every endpoint of the application with a point in one of the series', async () => {
      const last = await call('GET', `${SM}/last?timeSeriesName=voltage,consumption`);
      expect(last.status).toBe(200);
      expect(last.body).toEqual({
        'meter-001': { voltage: [{ timestamp: at(3), values: { value: 3 } }], consumption: [] },
        'meter-002': { voltage: [], consumption: [{ timestamp: at(4), values: { kwh: 4, tariff: 'day' } }] },
      });
    });

    it('beforeDate gives the newest point strictly before it (first revision, always accepted)', async () => {
      const before = async (date: string) =>
        (await call('GET', `${SM}/last?endpointId=meter-001&timeSeriesName=voltage&beforeDate=${date}`)).body[
          'meter-001'
        ].voltage;
      expect(await before(at(3))).toEqual([{ timestamp: at(2), values: { value: 2 } }]);
      expect(await before('2024-04-26T10:02:00.001Z')).toEqual([{ timestamp: at(2), values: { value: 2 } }]);
      expect(await before(at(1))).toEqual([]);
    });

    it.each([
      ['', 400, /timeSeriesName is required/],
      ['?timeSeriesName=', 400, /timeSeriesName is required/],
      ['?timeSeriesName=humidity', 400, /no time series humidity/],
      ['?timeSeriesName=voltage&beforeDate=soon', 400, /beforeDate must be an ISO 8601 datetime/],
      [
        '?timeSeriesName=voltage&endpointId=meter-001,tracker-001,ghost',
        404,
        /No endpoint tracker-001, ghost in application smart-meter/,
      ],
    ])('%s answers %i', async (query, status, message) => {
      const response = await call('GET', `${SM}/last${query}`);
      expect(response.status).toBe(status);
      expect(response.body.message).toMatch(message);
    });

    it('answers 404 for an unknown application', async () => {
      expect((await call('GET', `${EPTS}/applications/nope/time-series/last?timeSeriesName=x`)).status).toBe(404);
    });
  });

  describe('GET .../time-series/data', async () => {
    const own = await startTestEmulator();
    const call = api(own);
    // meter-001: a point at each of minutes 10, 20, 30, 40; meter-002: at 20.
    await api(own)('PUT', `${SM}/data`, {
      body: {
        'meter-001': { voltage: [10, 20, 30, 40].map((m) => voltage(m, m)) },
        'meter-002': { voltage: [voltage(20, 'x')] },
      },
    });
    const minutes = async (query: string) => {
      const response = await call('GET', `${SM}/data?endpointId=meter-001&timeSeriesName=voltage&${query}`);
      expect(response.status, response.text).toBe(200);
      return response.body
        .flatMap((chunk: any) => chunk['meter-001']?.voltage ?? [])
        .map((p: { values: { value: number } }) => p.values.value);
    };

    it.each([
      ['none', [30]],
      [undefined, [30]],
      ['from', [20, 30]],
      ['to', [30, 40]],
      ['both', [20, 30, 40]],
    ])('includeTime=%s between two stored times gives %j', async (includeTime, expected) => {
      expect(
        await minutes(`fromDate=${at(20)}&toDate=${at(40)}${includeTime ? `&includeTime=${includeTime}` : ''}`),
      ).toEqual(expected);
    });

    it.each([
      ['both', [20]],
      ['from', []],
      ['to', []],
      ['none', []],
    ])('a window of one instant with includeTime=%s gives %j', async (includeTime, expected) => {
      expect(await minutes(`fromDate=${at(20)}&toDate=${at(20)}&includeTime=${includeTime}`)).toEqual(expected);
    });

    it('sorts DESC on request, and keeps the order of endpoints', async () => {
      expect(await minutes(`fromDate=${at(0)}&toDate=${at(59)}&sort=DESC`)).toEqual([40, 30, 20, 10]);
      const both = await call('GET', `${SM}/data?timeSeriesName=voltage&fromDate=${at(0)}&toDate=${at(59)}&sort=DESC`);
      expect(both.body).toHaveLength(1);
      expect(Object.keys(both.body[0])).toEqual(['meter-001', 'meter-002']);
    });

    it('answers [] for a window without points', async () => {
      const empty = await call(
        'GET',
        `${SM}/data?timeSeriesName=voltage&fromDate=2020-01-01T00:00:00Z&toDate=2020-01-02T00:00:00Z`,
      );
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual([]);
    });

    it.each([
      ['timeSeriesName=voltage&toDate=2024-04-27T00:00:00Z', /fromDate is required/],
      ['timeSeriesName=voltage&fromDate=2024-04-26T00:00:00Z', /toDate is required/],
      ['fromDate=2024-04-26T00:00:00Z&toDate=2024-04-27T00:00:00Z', /timeSeriesName is required/],
      [
        'timeSeriesName=voltage&fromDate=2024-04-27T00:00:00Z&toDate=2024-04-26T00:00:00Z',
        /fromDate must not be after toDate/,
      ],
      [
        'timeSeriesName=voltage&fromDate=2024-04-26T00:00:00Z&toDate=2024-04-27T00:00:00Z&includeTime=all',
        /includeTime must be one of from, to, both, none/,
      ],
      [
        'timeSeriesName=voltage&fromDate=2024-04-26T00:00:00Z&toDate=2024-04-27T00:00:00Z&sort=up',
        /sort must be one of ASC, DESC/,
      ],
      ['timeSeriesName=voltage&fromDate=later&toDate=2024-04-27T00:00:00Z', /fromDate must be an ISO 8601 datetime/],
    ])('refuses %s with 400', async (query, message) => {
      const response = await call('GET', `${SM}/data?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
    });

    it('answers in chunks of at most 1000 points; one series continues in the next chunk', async () => {
      const points = Array.from({ length: 2500 }, (_, i) => ({
        timestamp: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
        values: { value: i },
      }));
      expect((await call('PUT', `${SM}/data`, { body: { 'meter-003': { voltage: points } } })).status).toBe(204);
      const response = await call(
        'GET',
        `${SM}/data?endpointId=meter-003&timeSeriesName=voltage&fromDate=2024-01-01T00:00:00Z` +
          `&toDate=2024-01-02T00:00:00Z&includeTime=both`,
      );
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      expect(response.body.map((chunk: any) => chunk['meter-003'].voltage.length)).toEqual([1000, 1000, 500]);
      const values = response.body.flatMap((chunk: any) =>
        chunk['meter-003'].voltage.map((p: { values: { value: number } }) => p.values.value),
      );
      expect(values).toEqual(points.map((p) => p.values.value));
    });

    it('a full chunk ends inside an endpoint: its next series and the next endpoint follow in the next chunk', async () => {
      const minutes = (count: number, values: (i: number) => Record<string, unknown>) =>
        Array.from({ length: count }, (_, i) => ({
          timestamp: new Date(Date.UTC(2024, 1, 1) + i * 60_000).toISOString(),
          values: values(i),
        }));
      const written = await call('PUT', `${SM}/data`, {
        body: {
          'meter-005': {
            voltage: minutes(600, (i) => ({ value: i })),
            consumption: minutes(600, (i) => ({ kwh: i, tariff: 'day' })),
          },
          'meter-006': { voltage: minutes(300, (i) => ({ value: -i })) },
        },
      });
      expect(written.status, written.text).toBe(204);
      const response = await call(
        'GET',
        `${SM}/data?endpointId=meter-005,meter-006&timeSeriesName=voltage,consumption` +
          `&fromDate=2024-02-01T00:00:00Z&toDate=2024-02-02T00:00:00Z&includeTime=both`,
      );
      expect(response.status).toBe(200);
      const shape = response.body.map((chunk: Record<string, Record<string, unknown[]>>) =>
        Object.entries(chunk).map(([id, series]) => [id, Object.entries(series).map(([n, p]) => [n, p.length])]),
      );
      expect(shape).toEqual([
        [
          [
            'meter-005',
            [
              ['voltage', 600],
              ['consumption', 400],
            ],
          ],
        ],
        [
          ['meter-005', [['consumption', 200]]],
          ['meter-006', [['voltage', 300]]],
        ],
      ]);
      expect(response.body[1]['meter-005'].consumption[0]).toEqual({
        timestamp: '2024-02-01T06:40:00.000Z',
        values: { kwh: 400, tariff: 'day' },
      });
    });

    it('answers a small window whole, with a Content-Length, as JSON.stringify writes it, in the order asked', async () => {
      // Ids "2" and "10": keys a JavaScript object would list first, and in the other order.
      for (const endpointId of ['2', '10'])
        expect(
          (
            await call('POST', '/epr/api/v1/endpoints', {
              body: { appVersion: { name: 'smart-meter-v1' }, endpointId },
            })
          ).status,
        ).toBe(201);
      const odd = 'quote " backslash \\ newline \n tab \t control \u0001 é 😀 \u2028';
      const consumption = { kwh: -0.25, tariff: { night: [1, 'a', null] } };
      const written = await call('PUT', `${SM}/data`, {
        body: {
          '2': {
            voltage: [voltage(0, odd), voltage(1, null)],
            consumption: [{ timestamp: at(2), values: consumption }],
          },
          '10': { voltage: [voltage(3, 1.5)] },
        },
      });
      expect(written.status, written.text).toBe(204);
      const response = await call(
        'GET',
        `${SM}/data?endpointId=10,2&timeSeriesName=voltage,consumption` +
          `&fromDate=${at(0)}&toDate=${at(3)}&includeTime=both`,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('transfer-encoding')).toBeNull();
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(response.text));
      const point = (minute: number, values: unknown) =>
        `{"timestamp":"${at(minute)}","values":${JSON.stringify(values)}}`;
      expect(response.text).toBe(
        `[{"10":{"voltage":[${point(3, { value: 1.5 })}]},` +
          `"2":{"voltage":[${point(0, { value: odd })},${point(1, { value: null })}],` +
          `"consumption":[${point(2, consumption)}]}}]`,
      );
      expect(JSON.parse(response.text)[0]['2'].voltage[0].values.value).toBe(odd);
    });

    it('shows every stored time as Date#toISOString does: across midnights, before 1970, with milliseconds', async () => {
      const sent = [
        '1969-12-31T23:59:59.999Z',
        '1970-01-01T00:00:00.000Z',
        '1999-12-31T23:59:59.001+00:00',
        '2000-01-01T00:00:00.010+01:00',
        '2024-02-29T23:59:59.5Z',
        '2024-03-01T00:00:00Z',
        '2024-03-01T13:07:42.123-0930',
        '9999-12-31T23:59:59.999Z',
      ];
      const body = { 'meter-004': { voltage: sent.map((timestamp, i) => ({ timestamp, values: { value: i } })) } };
      expect((await call('PUT', `${SM}/data`, { body })).status).toBe(204);
      const expected = sent.map((t) => new Date(t).toISOString()).sort();
      const read = async (sort: string) => {
        const response = await call(
          'GET',
          `${SM}/data?endpointId=meter-004&timeSeriesName=voltage&fromDate=1969-01-01T00:00:00Z` +
            `&toDate=9999-12-31T23:59:59.999Z&includeTime=both&sort=${sort}`,
        );
        return response.body[0]['meter-004'].voltage.map((p: { timestamp: string }) => p.timestamp);
      };
      expect(await read('ASC')).toEqual(expected);
      expect(await read('DESC')).toEqual([...expected].reverse());
    });
  });

  describe('with auth on', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const call = api(secured);
    const globex = await tokenFor(secured, { tenant: 'globex' });

    it("a tenant sees only its own applications' definitions and data", async () => {
      const config = await call('GET', `${EPTS}/time-series/config`, { token: globex });
      expect(config.body).toEqual({ thermostat: [{ name: 'temperature', values: ['value'] }] });
      expect((await call('GET', `${SM}/last?timeSeriesName=voltage`, { token: globex })).status).toBe(404);
      expect((await call('PUT', `${SM}/data`, { token: globex, body: {} })).status).toBe(404);
    });
  });
});
