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

  it(
    'as endpoint ids, endpoint metadata keys and KP1 data sample fields: time series answer them, never ' + '500',
    async () => {
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
    },
  );
});

describe('names of Object.prototype in every service that keys by user data', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  /** Never a 500: created (2xx) and read back, or refused with 400 (`__proto__` as an id). */
  const created = (name: string, status: number, text: string) => {
    expect(status, `${name}: ${text}`).toBeLessThan(500);
    if (REFUSED_IDS.has(name)) return false;
    expect(status, `${name}: ${text}`).toBeLessThan(300);
    return true;
  };

  it('command types (cex)', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const invoked = await call('POST', `/cex/api/v1/endpoints/meter-001/commands/${name}?waitTimeout=0`, {
        body: { [name]: 1 },
      });
      // A command type is letters and digits only: the names with `_` are refused like any such name.
      expect(invoked.status, `${name}: ${invoked.text}`).toBe(/^[a-zA-Z0-9]+$/.test(name) ? 202 : 400);
      if (invoked.status !== 202) continue;
      const read = await call('GET', `/cex/api/v1/endpoints/meter-001/commands/${name}/${invoked.body.commandId}`);
      expect(read.status, name).toBe(200);
      expect(read.body.commandType, name).toBe(name);
    }
  });

  it('basic credential usernames (ccm)', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const made = await call('POST', '/ccm/api/v1/basic-credentials', {
        body: { username: `${name}`, password: 'p' },
      });
      if (!created(name, made.status, made.text)) continue;
      const read = await call('GET', `/ccm/api/v1/basic-credentials/${made.body.id}`);
      expect(read.body.username, name).toBe(name);
    }
  });

  it('tenant ids and realm names (tenant-manager), and application names (app-manager)', async () => {
    const versions = Object.fromEntries(
      [
        'realm_template_version',
        'realm_scopes_version',
        'client_backend_version',
        'client_frontend_version',
        'roles_version',
        'resources_version',
      ].map((f) => [f, 1]),
    );
    for (const name of PROTOTYPE_NAMES) {
      const tenant = await call('POST', '/tenant-manager/api/v1/tenants', {
        body: { id: name, realm_name: name, ...versions },
      });
      if (created(name, tenant.status, tenant.text)) {
        expect((await call('GET', `/tenant-manager/api/v1/tenants/${name}`)).body.realm_name, name).toBe(name);
      }
    }
    for (const name of PROTOTYPE_NAMES.filter((n) => /^[a-z0-9_-]+$/.test(n))) {
      const app = await call('POST', '/app-manager/api/v1/applications', { body: { name } });
      if (created(name, app.status, app.text)) {
        expect((await call('GET', `/app-manager/api/v1/applications/${name}`)).body.name, name).toBe(name);
      }
    }
  });
});
