import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

/** Every property name of Object.prototype: each must be an ordinary name wherever user data names a key. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
/** What the store refuses as a record id (400); everything else is a name like any other. */
const REFUSED_IDS = new Set(['__proto__']);

const EPTS = '/epts/api/v1/applications/smart-meter/time-series';
const AT = '2024-04-26T10:00:00.000Z';

describe('names of Object.prototype are ordinary names', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('as endpoint ids, endpoint metadata keys and KP1 data sample fields: time series answer them, never 500', async () => {
    const endpoints: Array<{ id: string; token: string }> = [];
    for (const name of PROTOTYPE_NAMES) {
      const registered = await call('POST', '/epr/api/v1/endpoints', {
        body: {
          appVersion: { name: 'smart-meter-v1' },
          endpointId: name,
          endpointToken: `token-${name}`,
          metadata: { [name]: name },
        },
      });
      if (REFUSED_IDS.has(name)) {
        expect(registered.status, name).toBe(400);
        continue;
      }
      expect(registered.status, `${name}: ${registered.text}`).toBe(201);
      const read = await call('GET', `/epr/api/v1/endpoints/${name}?include=metadata`);
      expect(read.status, name).toBe(200);
      expect(read.body.metadata, name).toEqual(JSON.parse(JSON.stringify({ [name]: name })));
      endpoints.push({ id: name, token: registered.body.token });
    }
    // One sample per endpoint, naming every series after a prototype property (its own value: the series' index).
    const sample = JSON.parse(`{"ts":"${AT}",${PROTOTYPE_NAMES.map((n, i) => `"${n}":${i}`).join(',')}}`);
    for (const { token } of endpoints) {
      const sent = await call('POST', `/kp1/smart-meter-v1/dcx/${token}/json`, { body: [sample] });
      expect(sent.status, sent.text).toBe(200);
    }
    const ids = endpoints.map((e) => e.id).join(',');
    const series = PROTOTYPE_NAMES.join(',');
    const expected = Object.fromEntries(
      endpoints.map((e) => [
        e.id,
        Object.fromEntries(PROTOTYPE_NAMES.map((n, i) => [n, [{ timestamp: AT, values: { value: i } }]])),
      ]),
    );
    const last = await call('GET', `${EPTS}/last?endpointId=${ids}&timeSeriesName=${series}`);
    expect(last.status, last.text).toBe(200);
    expect(last.body).toEqual(expected);

    const data = await call(
      'GET',
      `${EPTS}/data?endpointId=${ids}&timeSeriesName=${series}&fromDate=${AT}&toDate=${AT}&includeTime=both`,
    );
    expect(data.status, data.text).toBe(200);
    // Chunks: an endpoint's series may continue in the next one; merged they are the whole answer.
    const merged: Record<string, Record<string, unknown[]>> = Object.create(null);
    for (const chunk of data.body as Array<Record<string, Record<string, unknown[]>>>) {
      for (const [endpointId, bySeries] of Object.entries(chunk)) {
        merged[endpointId] ??= Object.create(null);
        for (const [name, points] of Object.entries(bySeries)) (merged[endpointId][name] ??= []).push(...points);
      }
    }
    expect(JSON.parse(JSON.stringify(merged))).toEqual(expected);
    expect(Object.hasOwn(Object, 'value')).toBe(false);
  });
});
