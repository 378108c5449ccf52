import { describe, expect, it } from 'vitest';
import { ECR, json } from '../helpers/ecr.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, TestDevice } from './device.js';

describe('cmx: configuration over KP1', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it(
    'answers the device its own configuration, {} when it has it, the default without one, none at all as ' +
      'configId ""',
    async () => {
      const device = await TestDevice.connect(emulator);
      const own = await device.request('kp1/smart-meter-v1/cmx/meter-001-token/config/json', {});
      expect(own.ok).toBe(true);
      expect(own.payload).toEqual({
        configId: expect.any(String),
        statusCode: 200,
        reasonPhrase: 'ok',
        config: { reportingIntervalSeconds: 60, tariff: 'day-night' },
      });
      expect(
        (await device.request('kp1/smart-meter-v1/cmx/meter-001-token/config/json', { configId: own.payload.configId }))
          .payload,
      ).toEqual({});

      const fallback = await device.request('kp1/smart-meter-v1/cmx/meter-003-token/config/json', {});
      expect(fallback.payload).toEqual({
        configId: expect.any(String),
        statusCode: 200,
        reasonPhrase: 'ok',
        config: { reportingIntervalSeconds: 900, tariff: 'flat' },
      });
      const none = await device.request('kp1/smart-meter-v2/cmx/meter-004-token/config/json', { configId: 'stale' });
      expect(none.payload).toEqual({ configId: '', statusCode: 200, reasonPhrase: 'ok', config: null });
      expect(
        (await device.request('kp1/smart-meter-v2/cmx/meter-004-token/config/json', { configId: '' })).payload,
      ).toEqual({});
    },
  );

  it('refuses malformed requests with a KP1 error', async () => {
    const device = await TestDevice.connect(emulator);
    for (const [resource, payload, message] of [
      ['config/json', { configId: 5 }, /configId must be a string/],
      ['config/json', { observe: 'yes' }, /observe must be true or false/],
      ['config/json', { other: 1 }, /unknown field other/],
      ['applied/json', {}, /configId is required/],
      ['applied/json', { configId: 'x', statusCode: 'ok' }, /statusCode must be/],
      ['applied/json', '', /configId is required|got nothing/],
      // 7/CMP: the request payload MUST be a JSON object; a zero-length one is an error.
      ['config/json', '', /must be a JSON object \(at least \{\}\); got nothing/],
    ] as const) {
      const reply = await device.request(`kp1/smart-meter-v1/cmx/meter-002-token/${resource}`, payload);
      expect(reply.ok, resource).toBe(false);
      expect(reply.payload).toEqual({ statusCode: 400, reasonPhrase: expect.stringMatching(message) });
    }
  });

  it(
    'an observing device receives every change over REST and reports it applied; the listing shows what it ' +
      'applied',
    async () => {
      const endpoint = await registerEndpoint(emulator, 'tracker-v1');
      const device = await TestDevice.connect(emulator);
      const base = `${endpoint.topic('cmx')}/config/json`;
      const observe = await device.request(base, { observe: true });
      expect(observe.payload).toEqual({
        configId: expect.any(String),
        statusCode: 200,
        reasonPhrase: 'ok',
        config: { gpsIntervalSeconds: 30, geofence: 'city' },
      });
      const pushed = (predicate: (payload: any) => boolean) =>
        device.waitFor((m) => m.topic === `${observe.requestTopic}/status` && predicate(m.payload));
      const path = `${ECR}/endpoints/${endpoint.endpointId}/app-versions/tracker-v1`;

      const put = await call('PUT', path, json({ gpsIntervalSeconds: 5 }));
      const configId = put.headers.get('etag')!.replace(/"/g, '');
      expect((await pushed((p) => p.configId === configId)).payload).toEqual({
        configId,
        statusCode: 200,
        reasonPhrase: 'ok',
        config: { gpsIntervalSeconds: 5 },
      });
      // The push also goes to config/json/status, like command pushes.
      await device.waitFor((m) => m.topic === `${base}/status` && m.payload.configId === configId);

      const applied = await device.request(`${endpoint.topic('cmx')}/applied/json`, { configId });
      expect(applied.ok).toBe(true);
      const listing = await call('GET', `${ECR}/endpoints/${endpoint.endpointId}`);
      expect(listing.body).toEqual([
        expect.objectContaining({
          appVersionName: 'tracker-v1',
          configId,
          appliedConfigId: configId,
          appliedDate: expect.any(String),
        }),
      ]);

      await call('PUT', path, { rawBody: 'text config', headers: { 'content-type': 'text/plain' } });
      expect((await pushed((p) => p.config === 'text config')).payload.configId).not.toBe(configId);
      const rejected = await device.request(`${endpoint.topic('cmx')}/applied/json`, {
        configId: 'whatever',
        statusCode: 422,
        reasonPhrase: 'cannot parse',
      });
      expect(rejected.ok).toBe(true);
      const afterRejection = (await call('GET', `${ECR}/endpoints/${endpoint.endpointId}`)).body[0];
      expect(afterRejection).toMatchObject({
        appliedConfigId: configId,
        rejection: { configId: 'whatever', statusCode: 422, reasonPhrase: 'cannot parse' },
      });
      // 7/CMP: only 2xx is applied; a 3xx (or 1xx) is a failure too.
      const redirected = await device.request(`${endpoint.topic('cmx')}/applied/json`, {
        configId: 'moved',
        statusCode: 302,
      });
      expect(redirected).toMatchObject({ ok: true, payload: undefined });
      expect((await call('GET', `${ECR}/endpoints/${endpoint.endpointId}`)).body[0]).toMatchObject({
        appliedConfigId: configId,
        rejection: { configId: 'moved', statusCode: 302 },
      });

      await call('DELETE', path);
      const back = await pushed((p) => p.config?.geofence === 'city');
      expect(back.payload.config).toEqual({ gpsIntervalSeconds: 30, geofence: 'city' });
    },
  );

  it(
    'batch, filter and default-configuration changes reach observing devices; a default hidden by an own ' +
      'configuration does not',
    async () => {
      const devices = await Promise.all(
        ['tracker-001', 'tracker-002', 'tracker-003'].map(() => TestDevice.connect(emulator)),
      );
      const observers = await Promise.all(
        devices.map((device, i) =>
          device.request(`kp1/tracker-v1/cmx/tracker-00${i + 1}-token/config/json`, { observe: true }),
        ),
      );
      const pushedTo = (i: number, predicate: (payload: any) => boolean) =>
        devices[i].waitFor((m) => m.topic === `${observers[i].requestTopic}/status` && predicate(m.payload));

      await call('PUT', `${ECR}/endpoints/batch`, {
        body: { configPayload: { batch: 1 }, endpoints: { 'tracker-v1': ['tracker-001'] } },
      });
      await pushedTo(0, (p) => p.config?.batch === 1);

      await call('PUT', `${ECR}/endpoints/filters/north-fleet`, json({ filter: 'north' }));
      await pushedTo(0, (p) => p.config?.filter === 'north');
      await pushedTo(1, (p) => p.config?.filter === 'north');

      const version = await call('PUT', `${ECR}/app-versions/tracker-v1`, json({ fallback: 2 }));
      expect(version.status).toBe(200);
      await pushedTo(2, (p) => p.config?.fallback === 2);
      await call('PUT', `${ECR}/endpoints/tracker-003/app-versions/tracker-v1`, json({ own: 3 }));
      await pushedTo(2, (p) => p.config?.own === 3);
      expect(devices[0].messages.some((m) => m.payload?.config?.fallback === 2)).toBe(false);
      expect(devices[1].messages.some((m) => m.payload?.config?.fallback === 2)).toBe(false);
    },
  );

  it('a device that applied the default is listed with it, marked defaultConfiguration', async () => {
    const device = await TestDevice.connect(emulator);
    const offered = await device.request('kp1/smart-meter-v1/cmx/meter-005-token/config/json', {});
    expect(offered.ok).toBe(false); // meter-005 is a smart-meter-v2 endpoint
    const v2 = await device.request('kp1/smart-meter-v2/cmx/meter-005-token/config/json', {});
    expect(v2.payload.configId).toBe('');
    await call('PUT', `${ECR}/app-versions/smart-meter-v2`, json({ tariff: 'flat' }));
    const fallback = await device.request('kp1/smart-meter-v2/cmx/meter-005-token/config/json', {});
    await device.request('kp1/smart-meter-v2/cmx/meter-005-token/applied/json', {
      configId: fallback.payload.configId,
    });
    expect((await call('GET', `${ECR}/endpoints/meter-005`)).body).toEqual([
      expect.objectContaining({
        appVersionName: 'smart-meter-v2',
        configId: fallback.payload.configId,
        appliedConfigId: fallback.payload.configId,
        defaultConfiguration: true,
      }),
    ]);
    expect((await call('GET', `${ECR}/endpoints/meter-005/app-versions/smart-meter-v2`)).status).toBe(404);
  });
});

describe('cmx_ota: software over KP1', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const software = (app: string, version: string) => `/otao/api/v1/applications/${app}/software/${version}`;

  it(
    'offers software along the upgrade graph; an applied version becomes the endpoint’s softwareVersion ' +
      'metadata, and the next offer is pushed',
    async () => {
      const endpoint = await registerEndpoint(emulator, 'smart-meter-v1');
      const device = await TestDevice.connect(emulator);
      const base = `${endpoint.topic('cmx_ota')}/config/json`;
      const observe = await device.request(base, { observe: true });
      expect(observe.payload).toEqual({
        configId: '1.0.0',
        statusCode: 200,
        reasonPhrase: 'ok',
        config: { url: 'https://firmware.example.com/smart-meter/1.0.0.bin', size: 524288 },
      });
      expect((await device.request(base, { configId: '1.0.0' })).payload).toEqual({});

      await device.request(`${endpoint.topic('cmx_ota')}/applied/json`, { configId: '1.0.0' });
      const next = await device.waitFor(
        (m) => m.topic === `${observe.requestTopic}/status` && m.payload.configId === '1.1.0',
      );
      expect(next.payload.config.url).toMatch(/1\.1\.0\.bin$/);
      const registered = await call('GET', `/epr/api/v1/endpoints/${endpoint.endpointId}?include=metadata`);
      expect(registered.body.metadata).toEqual({ softwareVersion: '1.0.0' });

      await device.request(`${endpoint.topic('cmx_ota')}/applied/json`, {
        configId: '1.1.0',
        statusCode: 500,
        reasonPhrase: 'flash failed',
      });
      expect(
        (await call('GET', `/epr/api/v1/endpoints/${endpoint.endpointId}?include=metadata`)).body.metadata,
      ).toEqual({
        softwareVersion: '1.0.0',
      });
      await device.request(`${endpoint.topic('cmx_ota')}/applied/json`, { configId: '1.1.0' });
      // 2.0.0-beta.1 is targeted at beta testers, 2.0.0 suspended: nothing after 1.1.0 for this endpoint.
      await device.waitFor((m) => m.topic === `${observe.requestTopic}/status` && m.payload.configId === '');
      expect((await device.request(base, {})).payload).toEqual({
        configId: '',
        statusCode: 200,
        reasonPhrase: 'ok',
        config: null,
      });
    },
  );

  it(
    'rolls out by strategy: a change of the rollout strategy over REST is pushed to the devices it ' + 'reaches',
    async () => {
      const beta = await registerEndpoint(emulator, 'smart-meter-v2', { beta: true, softwareVersion: '1.1.0' });
      const plain = await registerEndpoint(emulator, 'smart-meter-v2', { softwareVersion: '1.1.0' });
      const [betaDevice, plainDevice] = await Promise.all([TestDevice.connect(emulator), TestDevice.connect(emulator)]);
      const betaObserve = await betaDevice.request(`${beta.topic('cmx_ota')}/config/json`, { observe: true });
      const plainObserve = await plainDevice.request(`${plain.topic('cmx_ota')}/config/json`, { observe: true });
      expect(betaObserve.payload.configId).toBe('2.0.0-beta.1');
      expect(plainObserve.payload.configId).toBe('');

      expect(
        (await call('PUT', software('smart-meter', '2.0.0'), { body: { rolloutStrategy: 'general' } })).status,
      ).toBe(204);
      await betaDevice.waitFor(
        (m) => m.topic === `${betaObserve.requestTopic}/status` && m.payload.configId === '2.0.0',
      );
      await plainDevice.waitFor(
        (m) => m.topic === `${plainObserve.requestTopic}/status` && m.payload.configId === '2.0.0',
      );

      expect(
        (await call('PUT', software('smart-meter', '2.0.0'), { body: { rolloutStrategy: 'suspended' } })).status,
      ).toBe(204);
      await betaDevice.waitFor(
        (m) => m.topic === `${betaObserve.requestTopic}/status` && m.payload.configId === '2.0.0-beta.1',
      );
      await plainDevice.waitFor((m) => m.topic === `${plainObserve.requestTopic}/status` && m.payload.configId === '');
    },
  );

  it(
    'rolls out by filter date: when a rollout date passes, the devices the filter matches are pushed the ' + 'software',
    async () => {
      const endpoint = await registerEndpoint(emulator, 'tracker-v1', { fleet: 'north', softwareVersion: '3.2.0' });
      const device = await TestDevice.connect(emulator);
      const observe = await device.request(`${endpoint.topic('cmx_ota')}/config/json`, { observe: true });
      expect(observe.payload.configId).toBe('');
      // Whole seconds (the date format has no fraction), at least one second ahead.
      const rolloutDate = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const created = await call('POST', software('tracker', '3.3.0'), {
        body: {
          upgradableFrom: ['3.2.0'],
          rolloutStrategy: 'targeted',
          filters: [{ filterId: 'north-fleet', rolloutDate }],
          specification: { url: 'u' },
        },
      });
      expect(created.status).toBe(201);
      expect((await device.request(`${endpoint.topic('cmx_ota')}/config/json`, {})).payload.configId).toBe('');
      const pushed = await device.waitFor(
        (m) => m.topic === `${observe.requestTopic}/status` && m.payload.configId === '3.3.0',
        8000,
      );
      expect(pushed.payload).toEqual({ configId: '3.3.0', statusCode: 200, reasonPhrase: 'ok', config: { url: 'u' } });
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(rolloutDate));
    },
  );
});
