import { describe, expect, it } from 'vitest';
import { ECR, json, one } from '../helpers/ecr.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const tekton = (app: string, version: string) =>
  `/tekton/api/v1/app-configs/applications/${app}/app-versions/${version}`;

describe('configuration schemas, batch and filter writes', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  /** A new tracker version with the given application version configuration, and one endpoint in it. */
  const versionWith = async (name: string, config: unknown) => {
    expect((await call('POST', '/app-manager/api/v1/applications/tracker/versions', { body: { name } })).status).toBe(
      201,
    );
    expect((await call('PUT', tekton('tracker', name), { body: config })).status).toBe(204);
    const endpointId = `${name}-endpoint`;
    expect((await call('POST', '/epr/api/v1/endpoints', { body: { appVersion: { name }, endpointId } })).status).toBe(
      201,
    );
    return endpointId;
  };

  const strict = await versionWith('tracker-strict', { ecr: { configSchemaRequired: true } });
  const broken = await versionWith('tracker-broken', { ecr: { configSchema: { type: 'nonsense' } } });
  const notAnObject = await versionWith('tracker-odd', { ecr: 'schema please' });
  const badFlag = await versionWith('tracker-flag', { ecr: { configSchemaRequired: 'yes' } });
  const numberSchema = await versionWith('tracker-number', { ecr: { configSchema: 5 } });

  describe('the schema of the application version (application configuration service, key "ecr")', () => {
    it('422 with ajv’s reasons for a payload that breaks it, nothing stored', async () => {
      const response = await call(
        'PUT',
        one('meter-002', 'smart-meter-v1'),
        json({ reportingIntervalSeconds: 5, colour: 'red' }),
      );
      expect(response.status).toBe(422);
      expect(response.body.message).toMatch(/reportingIntervalSeconds must be >= 10/);
      expect(response.body.message).toMatch(/unknown field colour/);
      expect((await call('GET', one('meter-002', 'smart-meter-v1'))).status).toBe(404);
      const text = await call('PUT', one('meter-002', 'smart-meter-v1'), {
        rawBody: 'x',
        headers: { 'content-type': 'text/plain' },
      });
      expect(text.status).toBe(422);
      expect(text.body.message).toMatch(/must be a JSON object/);
    });

    it('a valid payload passes; a schema changed by JSON Patch applies to the next write', async () => {
      expect(
        (await call('PUT', one('meter-003', 'smart-meter-v1'), json({ reportingIntervalSeconds: 30 }))).status,
      ).toBe(201);
      const patch = await call('PATCH', tekton('smart-meter', 'smart-meter-v1'), {
        body: [{ op: 'replace', path: '/ecr/configSchema/properties/reportingIntervalSeconds/minimum', value: 60 }],
      });
      expect(patch.status).toBe(204);
      const refused = await call('PUT', one('meter-003', 'smart-meter-v1'), json({ reportingIntervalSeconds: 30 }));
      expect(refused.status).toBe(422);
      expect(refused.body.message).toMatch(/must be >= 60/);
      await call('PATCH', tekton('smart-meter', 'smart-meter-v1'), {
        body: [{ op: 'replace', path: '/ecr/configSchema/properties/reportingIntervalSeconds/minimum', value: 10 }],
      });
    });

    it('a schema in the draft its $schema names (2020-12 here), formats checked', async () => {
      const endpointId = await versionWith('tracker-2020', {
        ecr: {
          configSchemaRequired: true,
          configSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: {
              contact: { type: 'string', format: 'email' },
              pair: { prefixItems: [{ type: 'integer' }, { type: 'string' }] },
            },
          },
        },
      });
      const refused = await call('PUT', one(endpointId, 'tracker-2020'), json({ contact: 'nobody', pair: ['x', 'y'] }));
      expect(refused.status).toBe(422);
      expect(refused.body.message).toMatch(/contact must match format "email"/);
      expect(refused.body.message).toMatch(/pair.0 must be an integer/);
      expect(
        (await call('PUT', one(endpointId, 'tracker-2020'), json({ contact: 'ops@example.com', pair: [1, 'y'] })))
          .status,
      ).toBe(201);
    });

    it('configSchemaRequired true and no configSchema: 404 on every write', async () => {
      const writes = [
        ['PUT', one(strict, 'tracker-strict'), json({ a: 1 })],
        ['PUT', `${ECR}/app-versions/tracker-strict`, json({ a: 1 })],
        [
          'PUT',
          `${ECR}/endpoints/batch`,
          { body: { configPayload: { a: 1 }, endpoints: { 'tracker-strict': [strict] } } },
        ],
      ] as const;
      for (const [method, path, options] of writes) {
        const response = await call(method, path, options);
        expect(response.status, path).toBe(404);
        expect(response.body.message).toMatch(/requires a configuration schema/);
      }
      expect((await call('GET', one(strict, 'tracker-strict'))).status).toBe(404);
    });

    it('a configuration that is not a usable schema: 503 on every write', async () => {
      for (const [endpointId, version, reason] of [
        [broken, 'tracker-broken', /not a valid JSON Schema/],
        [notAnObject, 'tracker-odd', /not a JSON object/],
        [badFlag, 'tracker-flag', /configSchemaRequired is not true or false/],
        [numberSchema, 'tracker-number', /a JSON Schema is an object or a boolean/],
      ] as const) {
        for (const [method, path, options] of [
          ['PUT', one(endpointId, version), json({ a: 1 })],
          ['PUT', `${ECR}/app-versions/${version}`, json({ a: 1 })],
          [
            'PUT',
            `${ECR}/endpoints/batch`,
            { body: { configPayload: { a: 1 }, endpoints: { [version]: [endpointId] } } },
          ],
        ] as const) {
          const response = await call(method, path, options);
          expect(response.status, `${method} ${path}`).toBe(503);
          expect(response.body.message).toMatch(reason);
        }
      }
    });
  });

  describe('PUT /endpoints/batch', () => {
    it('writes the payload for every listed endpoint and version, answering what it wrote', async () => {
      const response = await call('PUT', `${ECR}/endpoints/batch`, {
        body: {
          configPayload: { reportingIntervalSeconds: 120 },
          endpoints: { 'smart-meter-v1': ['meter-002', 'meter-003', 'meter-002'], 'smart-meter-v2': ['meter-004'] },
        },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.map((r: any) => `${r.endpointId}@${r.appVersionName}`)).toEqual([
        'meter-002@smart-meter-v1',
        'meter-003@smart-meter-v1',
        'meter-004@smart-meter-v2',
      ]);
      for (const [id, version] of [
        ['meter-002', 'smart-meter-v1'],
        ['meter-003', 'smart-meter-v1'],
        ['meter-004', 'smart-meter-v2'],
      ]) {
        const got = await call('GET', one(id, version));
        expect(got.body).toEqual({ reportingIntervalSeconds: 120 });
        expect(got.headers.get('etag')).toBe(`"${response.body.find((r: any) => r.endpointId === id).configId}"`);
      }
    });

    it.each([
      ['an unknown endpoint', { 'tracker-v1': ['tracker-003', 'tracker-005x'] }, 404],
      ['an endpoint of another application', { 'smart-meter-v1': ['tracker-001'] }, 404],
      ['another tenant’s endpoint', { 'thermostat-v1': ['thermo-001'] }, 404],
      ['an unknown version', { 'no-such-version': ['tracker-001'] }, 404],
      ['a version whose schema the payload breaks', { 'smart-meter-v2': ['meter-005'] }, 422],
      ['a version that requires a schema it lacks', { 'tracker-strict': [strict] }, 404],
    ])('one invalid target (%s): %s, nothing changes', async (_name, targets, status) => {
      const listings = () =>
        Promise.all(
          ['tracker-001', 'tracker-003', 'meter-005'].map(
            async (id) => (await call('GET', `${ECR}/endpoints/${id}`)).body,
          ),
        );
      const before = await listings();
      const response = await call('PUT', `${ECR}/endpoints/batch`, {
        body: {
          configPayload: { colour: 'blue' },
          endpoints: { 'tracker-v1': ['tracker-001', 'tracker-003'], ...targets },
        },
      });
      expect(response.status, response.text).toBe(status);
      expect(await listings()).toEqual(before);
    });

    it.each([
      [{ endpoints: { 'tracker-v1': ['tracker-001'] } }, /configPayload is required/],
      [{ configPayload: 1 }, /endpoints is required/],
      [{ configPayload: 1, endpoints: { 'tracker-v1': 'tracker-001' } }, /must be an array/],
      [{ configPayload: 1, endpoints: [] }, /endpoints must be a JSON object/],
    ])('400 for %j', async (body, message) => {
      const response = await call('PUT', `${ECR}/endpoints/batch`, { body });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
    });
  });

  describe('PUT /endpoints/filters/{filterId}', () => {
    it('writes the payload for every endpoint the filter matches, each for its current version', async () => {
      const response = await call('PUT', `${ECR}/endpoints/filters/berlin-meters`, json({ tariff: 'day-night' }));
      expect(response.status, response.text).toBe(200);
      expect(response.body.map((r: any) => `${r.endpointId}@${r.appVersionName}`)).toEqual([
        'meter-001@smart-meter-v1',
        'meter-002@smart-meter-v1',
        'meter-006@smart-meter-v2',
      ]);
      expect((await call('GET', one('meter-006', 'smart-meter-v2'))).body).toEqual({ tariff: 'day-night' });
    });

    it('one endpoint whose version refuses the payload: 422, nothing changes', async () => {
      const before = await call('GET', `${ECR}/endpoints/meter-001`);
      const response = await call(
        'PUT',
        `${ECR}/endpoints/filters/berlin-meters`,
        json({ reportingIntervalSeconds: 'often' }),
      );
      expect(response.status).toBe(422);
      expect((await call('GET', `${ECR}/endpoints/meter-001`)).body).toEqual(before.body);
    });

    it('404 for an unknown filter, an inactive one, another tenant’s', async () => {
      for (const filterId of ['nope', 'legacy-firmware', 'basement']) {
        const response = await call('PUT', `${ECR}/endpoints/filters/${filterId}`, json({ a: 1 }));
        expect(response.status, filterId).toBe(404);
        expect(response.body.message).toMatch(/no active endpoint filter/);
      }
    });

    it('keeps a text payload’s content type', async () => {
      const response = await call('PUT', `${ECR}/endpoints/filters/north-fleet`, {
        rawBody: 'fleet=north',
        headers: { 'content-type': 'text/plain' },
      });
      expect(response.body.map((r: any) => r.endpointId)).toEqual(['tracker-001', 'tracker-002']);
      const listing = await call('GET', `${ECR}/endpoints/tracker-002`);
      expect(listing.body[0]).toMatchObject({ configContentType: 'text/plain', config: 'fleet=north' });
    });
  });
});
