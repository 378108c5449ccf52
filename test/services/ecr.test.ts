import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ECR, json, one, trackerRegistrar } from '../helpers/ecr.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('endpoint configuration registry', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const newTracker = trackerRegistrar(call);

  describe('per endpoint (raw shape, the default)', () => {
    it(
      'PUT creates (201, Location, ETag = configId), updates (204, new ETag), GET returns the payload as ' + 'stored',
      async () => {
        const id = await newTracker();
        const created = await call('PUT', one(id, 'tracker-v1'), json({ interval: 10 }));
        expect(created.status).toBe(201);
        expect(created.headers.get('location')).toBe(`${emulator.url}${one(id, 'tracker-v1')}`);
        const firstTag = created.headers.get('etag')!;
        expect(firstTag).toMatch(/^"[0-9a-f-]{36}"$/);
        const updated = await call('PUT', one(id, 'tracker-v1'), json({ interval: 20 }));
        expect(updated.status).toBe(204);
        expect(updated.headers.get('etag')).not.toBe(firstTag);
        const got = await call('GET', one(id, 'tracker-v1'));
        expect(got.status).toBe(200);
        expect(got.body).toEqual({ interval: 20 });
        expect(got.headers.get('content-type')).toMatch(/^application\/json/);
        expect(got.headers.get('etag')).toBe(updated.headers.get('etag'));
        expect(got.headers.get('last-modified')).toBeTruthy();
      },
    );

    it('keeps any JSON value, also under application/json;charset=utf-8', async () => {
      const id = await newTracker();
      for (const value of [[1, 2], 'a string', 7, null, { deep: { list: [{}] } }]) {
        const put = await call('PUT', one(id, 'tracker-v1'), {
          rawBody: JSON.stringify(value),
          headers: { 'content-type': 'application/json;charset=utf-8' },
        });
        expect(put.status, put.text).toBeLessThan(300);
        expect((await call('GET', one(id, 'tracker-v1'))).body).toEqual(value);
      }
    });

    it('keeps text/plain and application/octet-stream payloads with their content type', async () => {
      const id = await newTracker();
      expect(
        (
          await call('PUT', one(id, 'tracker-v1'), {
            rawBody: 'mode=eco\nlevel=3',
            headers: { 'content-type': 'text/plain' },
          })
        ).status,
      ).toBe(201);
      const text = await call('GET', one(id, 'tracker-v1'));
      expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(text.text).toBe('mode=eco\nlevel=3');
      let listing = await call('GET', `${ECR}/endpoints/${id}`);
      expect(listing.body).toEqual([
        {
          appVersionName: 'tracker-v1',
          configId: expect.any(String),
          configContentType: 'text/plain',
          config: 'mode=eco\nlevel=3',
          updatedDate: expect.any(String),
        },
      ]);

      const bytes = Buffer.from([0, 1, 2, 250, 255]);
      expect(
        (
          await call('PUT', one(id, 'tracker-v1'), {
            rawBody: bytes,
            headers: { 'content-type': 'application/octet-stream' },
          })
        ).status,
      ).toBe(204);
      const binary = await fetch(`${emulator.url}${one(id, 'tracker-v1')}`);
      expect(binary.headers.get('content-type')).toBe('application/octet-stream');
      expect(Buffer.from(await binary.arrayBuffer())).toEqual(bytes);
      listing = await call('GET', `${ECR}/endpoints/${id}`);
      expect(listing.body[0]).toMatchObject({
        configContentType: 'application/octet-stream',
        config: bytes.toString('base64'),
      });
    });

    it.each([
      ['malformed JSON', { rawBody: '{"a":', headers: { 'content-type': 'application/json' } }, 400, /not valid JSON/],
      ['no body', {}, 400, /body is missing/],
      [
        'a form body (curl -d without a Content-Type)',
        { rawBody: '{"a":1}', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        415,
        /'Content-Type: application\/json'/,
      ],
    ])('%s: status %s, nothing stored', async (_name, options, status, message) => {
      const id = await newTracker();
      const response = await call('PUT', one(id, 'tracker-v1'), options);
      expect(response.status).toBe(status);
      expect(response.body.message).toMatch(message);
      expect((await call('GET', one(id, 'tracker-v1'))).status).toBe(404);
    });

    it(
      '404 for an unknown endpoint, a version of another application, an unknown version, another ' + 'tenant',
      async () => {
        for (const path of [
          one('nope', 'tracker-v1'),
          one('tracker-001', 'smart-meter-v1'),
          one('tracker-001', 'nope'),
          one('thermo-001', 'thermostat-v1'),
        ]) {
          for (const method of ['PUT', 'GET', 'DELETE']) {
            const response = await call(method, path, method === 'PUT' ? json({ a: 1 }) : {});
            expect(response.status, `${method} ${path}`).toBe(404);
            expect(response.body.message).toMatch(/no endpoint|has no version/);
          }
        }
        expect((await call('GET', `${ECR}/endpoints/nope`)).status).toBe(404);
        expect((await call('GET', `${ECR}/endpoints/thermo-001`)).status).toBe(404);
      },
    );

    it(
      '400 naming the reason for a "." or ".." endpoint id, sent as is or percent-encoded; ' + 'nothing is written',
      async () => {
        /** The path exactly as given: fetch (WHATWG URL) would remove the dot segments, as clients do. */
        const asIs = (method: string, path: string, body?: string) =>
          new Promise<{ status: number; message: string }>((resolve, reject) => {
            const request = httpRequest(`${emulator.url}/`, { method, path }, (response) => {
              let text = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => (text += chunk));
              response.on('end', () => resolve({ status: response.statusCode!, message: JSON.parse(text).message }));
            });
            request.on('error', reject);
            if (body !== undefined) request.setHeader('content-type', 'application/json');
            request.end(body);
          });
        const defaultBefore = await call('GET', `${ECR}/app-versions/tracker-v1`);
        for (const id of ['.', '..', '%2e', '%2E%2E', '.%2e']) {
          for (const [method, path, body] of [
            ['PUT', one(id, 'tracker-v1'), '{"interval":1}'],
            ['GET', one(id, 'tracker-v1')],
            ['DELETE', one(id, 'tracker-v1')],
            ['GET', `${ECR}/endpoints/${id}`],
            ['PUT', `/api/v1/endpoints/${id}/app-versions/tracker-v1`, '{"interval":1}'],
          ] as const) {
            const response = await asIs(method, path, body);
            expect(response.status, `${method} ${path}`).toBe(400);
            expect(response.message).toMatch(/^Invalid endpoint id "\.{1,2}": an endpoint id is never "\." or "\.\."/);
            expect(response.message).toContain("the version's default configuration");
          }
        }
        const defaultAfter = await call('GET', `${ECR}/app-versions/tracker-v1`);
        expect([defaultAfter.status, defaultAfter.headers.get('etag')]).toEqual([
          defaultBefore.status,
          defaultBefore.headers.get('etag'),
        ]);

        const id = await newTracker();
        const batch = await call('PUT', `${ECR}/endpoints/batch`, {
          body: { configPayload: { interval: 2 }, endpoints: { 'tracker-v1': [id, '..'] } },
        });
        expect(batch.status).toBe(400);
        expect(batch.body.message).toMatch(/^Invalid endpoint id "\.\."/);
        expect((await call('GET', one(id, 'tracker-v1'))).status).toBe(404);
        // Registration refuses them too: no endpoint has such an id.
        for (const endpointId of ['.', '..'])
          expect(
            (await call('POST', '/epr/api/v1/endpoints', { body: { appVersion: { name: 'tracker-v1' }, endpointId } }))
              .status,
          ).toBe(400);
      },
    );

    it(
      'answers only its own configuration: 404 when it has none (the default does not count), ' + 'also after DELETE',
      async () => {
        const id = await newTracker();
        expect((await call('GET', `${ECR}/app-versions/tracker-v1`)).status).toBe(200);
        expect((await call('GET', one(id, 'tracker-v1'))).status).toBe(404);
        expect((await call('GET', `${ECR}/endpoints/${id}`)).body).toEqual([]);
        await call('PUT', one(id, 'tracker-v1'), json({ own: true }));
        const deleted = await call('DELETE', one(id, 'tracker-v1'));
        expect(deleted.status).toBe(204);
        const after = await call('GET', one(id, 'tracker-v1'));
        expect(after.status).toBe(404);
        expect(after.body.message).toMatch(/no configuration of its own/);
        expect((await call('DELETE', one(id, 'tracker-v1'))).status).toBe(404);
      },
    );
  });

  describe('default configuration per application version', () => {
    it('PUT answers 200 with ETag and the record; GET the payload; If-Match and 304 as per endpoint', async () => {
      await call('POST', '/app-manager/api/v1/applications/tracker/versions', { body: { name: 'tracker-defaults' } });
      const path = `${ECR}/app-versions/tracker-defaults`;
      expect((await call('GET', path)).status).toBe(404);
      const put = await call('PUT', path, json({ interval: 60 }));
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        configId: expect.any(String),
        config: '{"interval":60}',
        createdDate: expect.any(String),
        updatedDate: expect.any(String),
      });
      expect(put.headers.get('etag')).toBe(`"${put.body.configId}"`);
      const got = await call('GET', path);
      expect(got.body).toEqual({ interval: 60 });
      expect((await call('GET', path, { headers: { 'if-none-match': put.headers.get('etag')! } })).status).toBe(304);
      const stale = await call('PUT', path, {
        ...json({ interval: 1 }),
        headers: { 'content-type': 'application/json', 'if-match': '"old"' },
      });
      expect(stale.status).toBe(412);
      const next = await call('PUT', path, {
        ...json({ interval: 30 }),
        headers: { 'content-type': 'application/json', 'if-match': put.headers.get('etag')! },
      });
      expect(next.status).toBe(200);
      expect(next.body.createdDate).toBe(put.body.createdDate);
      expect((await call('DELETE', path)).status).toBe(204);
      expect((await call('GET', path)).status).toBe(404);
    });

    it('404 for an unknown version or another tenant’s', async () => {
      for (const version of ['nope', 'thermostat-v1']) {
        expect((await call('GET', `${ECR}/app-versions/${version}`)).status).toBe(404);
        expect((await call('PUT', `${ECR}/app-versions/${version}`, json({ a: 1 }))).status).toBe(404);
      }
    });
  });

  it('lists the configurations of an endpoint: one item per version with configContentType', async () => {
    const listing = await call('GET', `${ECR}/endpoints/meter-001`);
    expect(listing.status).toBe(200);
    expect(listing.body).toEqual([
      {
        appVersionName: 'smart-meter-v1',
        configId: expect.any(String),
        configContentType: 'application/json',
        config: '{"reportingIntervalSeconds":60,"tariff":"day-night"}',
        updatedDate: expect.any(String),
      },
    ]);
  });

  it('the shared path: bare /api/v1/endpoints/{id} is the endpoint register’s, /ecr keeps the listing', async () => {
    const bare = await call('GET', '/api/v1/endpoints/meter-001');
    expect(bare.body).toMatchObject({ endpointId: 'meter-001', appVersion: { name: 'smart-meter-v1' } });
    expect(Array.isArray((await call('GET', `${ECR}/endpoints/meter-001`)).body)).toBe(true);
    expect((await call('GET', '/api/v1/endpoints/meter-001/app-versions/smart-meter-v1')).body).toEqual({
      reportingIntervalSeconds: 60,
      tariff: 'day-night',
    });
  });

  it(
    'GET /service-instances lists the three services with their prefixes; ecr declares its version ' +
      'configuration schema',
    async () => {
      const list = await call('GET', '/app-manager/api/v1/service-instances');
      const byName = new Map(list.body.map((s: any) => [s.name, s]));
      for (const prefix of ['ecr', 'otao', 'tekton'])
        expect(byName.get(prefix)).toMatchObject({ urlPrefix: `/${prefix}`, serviceGroup: 'device' });
      expect(byName.get('ecr')).toMatchObject({ appVersionConfigurationSchemaPresent: true });
      const ecr = await call('GET', '/app-manager/api/v1/service-instances/ecr?include=appVersionConfigurationSchema');
      expect(ecr.body.appVersionConfigurationSchema.properties).toHaveProperty('configSchema');
      expect(ecr.body.appVersionConfigurationSchema.properties).toHaveProperty('configSchemaRequired');
    },
  );
});
