import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const EPR = '/epr/api/v1';

describe('endpoint register', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  describe('POST /endpoints', async () => {
    // Registrations here must not change the lists the GET tests count.
    const writable = await startTestEmulator();
    const call = api(writable);
    const emulator = writable;

    it('registers with generated id and token, answers 201 { token, status: Inactive } with Location', async () => {
      const created = await call('POST', `${EPR}/endpoints`, {
        body: { appVersion: { name: 'tracker-v1' }, metadata: { vehicle: 'bike-1' } },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ token: expect.any(String), status: 'Inactive' });
      expect(created.body.token).toMatch(/^[^+#/.]+$/);
      const location = created.headers.get('location')!;
      expect(location).toMatch(new RegExp(`^${emulator.url}/epr/api/v1/endpoints/[a-zA-Z0-9._~-]+$`));
      const fetched = await call('GET', `${location.slice(emulator.url.length)}?include=metadata`);
      expect(fetched.status).toBe(200);
      expect(fetched.body.appVersion.name).toBe('tracker-v1');
      expect(fetched.body.metadata).toEqual({ vehicle: 'bike-1' });
    });

    it('keeps a given endpointId and endpointToken', async () => {
      const created = await call('POST', `${EPR}/endpoints`, {
        body: { appVersion: { name: 'tracker-v1' }, endpointId: 'my.dev~1_a-b', endpointToken: 'tok-1' },
      });
      expect(created.status).toBe(201);
      expect(created.body.token).toBe('tok-1');
      expect(created.headers.get('location')).toMatch(/\/endpoints\/my.dev~1_a-b$/);
    });

    it.each([
      ['plain', {}],
      // With a conditional header the answer goes through express's own res.json: the same bytes.
      ['with If-None-Match', { 'if-none-match': '*' }],
    ])('answers a registration (%s) with exactly its headers and body', async (_, headers) => {
      const endpointId = `exact-${Object.keys(headers).length}`;
      const created = await call('POST', `${EPR}/endpoints`, {
        body: { appVersion: { name: 'tracker-v1' }, endpointId, endpointToken: `tok-${endpointId}` },
        headers,
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toBe(`${emulator.url}${EPR}/endpoints/${endpointId}`);
      expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = `{"token":"tok-${endpointId}","status":"Inactive"}`;
      expect(created.headers.get('content-length')).toBe(String(text.length));
      expect(created.text).toBe(text);
    });

    it.each([
      [{}, /appVersion is required/],
      [{ appVersion: {} }, /appVersion.name is required/],
      [{ appVersion: { name: 'tracker-v1' }, endpointId: '.' }, /endpointId must match/],
      [{ appVersion: { name: 'tracker-v1' }, endpointId: '..' }, /endpointId must match/],
      [
        { appVersion: { name: 'tracker-v1' }, endpointId: 'x'.repeat(256) },
        /endpointId must NOT have more than 255 characters/,
      ],
      [{ appVersion: { name: 'no-such-version' } }, /Invalid application version name/],
      [{ appVersion: { name: 'thermostat-v1' } }, /Invalid application version name/],
      [{ appVersion: { name: 'tracker-v1' }, endpointId: 'bad id' }, /endpointId must match/],
      [{ appVersion: { name: 'tracker-v1' }, endpointId: 'a/b' }, /endpointId must match/],
      [{ appVersion: { name: 'tracker-v1' }, endpointToken: 'a.b' }, /endpointToken/],
      [{ appVersion: { name: 'tracker-v1' }, endpointToken: 'a+b' }, /endpointToken/],
      [{ appVersion: { name: 'tracker-v1' }, endpointToken: 42 }, /endpointToken/],
      [{ appVersion: { name: 'tracker-v1' }, metadata: [1] }, /metadata must be a JSON object/],
      [[1, 2], /the body must be a JSON object/],
    ])('400 for %j', async (body, message) => {
      const response = await call('POST', `${EPR}/endpoints`, { body });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
    });

    it('409 for a taken endpointId (global) or a token taken within the application', async () => {
      const id = await call('POST', `${EPR}/endpoints`, {
        body: { appVersion: { name: 'tracker-v1' }, endpointId: 'meter-001' },
      });
      expect(id.status).toBe(409);
      const token = await call('POST', `${EPR}/endpoints`, {
        body: { appVersion: { name: 'tracker-v1' }, endpointToken: 'tracker-001-token' },
      });
      expect(token.status).toBe(409);
      // The same token in another application is fine: tokens are unique within an application.
      const other = await call('POST', `${EPR}/endpoints`, {
        body: { appVersion: { name: 'smart-meter-v1' }, endpointToken: 'tracker-001-token' },
      });
      expect(other.status).toBe(201);
    });

    it("shows a registration at once at the end of its application's list, and only there", async () => {
      const ids = async (query: string) =>
        (await call('GET', `${EPR}/endpoints?${query}&limit=0`)).body.content.map((e: any) => e.endpointId);
      const [trackers, meters] = [await ids('applicationName=tracker'), await ids('applicationName=smart-meter')];
      expect(
        (
          await call('POST', `${EPR}/endpoints`, {
            body: { appVersion: { name: 'tracker-v1' }, endpointId: 'listed-last' },
          })
        ).status,
      ).toBe(201);
      expect(await ids('applicationName=tracker')).toEqual([...trackers, 'listed-last']);
      expect(await ids('applicationName=smart-meter')).toEqual(meters);
      expect(await ids('applicationName=thermostat')).toEqual([]);
    });

    it('400 for malformed JSON, and nothing is stored', async () => {
      const before = (await call('GET', `${EPR}/endpoints?limit=0`)).body.totalElements;
      const response = await call('POST', `${EPR}/endpoints`, {
        rawBody: '{"appVersion": {',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/not valid JSON/);
      expect((await call('GET', `${EPR}/endpoints?limit=0`)).body.totalElements).toBe(before);
    });
  });

  describe('GET /endpoints', () => {
    const list = async (query: string) => (await call('GET', `${EPR}/endpoints?${query}`)).body;

    it(
      'lists the tenant’s endpoints with totalElements, without metadata unless included, filters always ' + 'present',
      async () => {
        const body = await list('applicationName=smart-meter');
        expect(body.totalElements).toBe(6);
        expect(body.content[0]).toEqual({
          endpointId: 'meter-001',
          createdDate: expect.any(String),
          appVersion: { name: 'smart-meter-v1', registeredDate: expect.any(String) },
          filters: [],
        });
      },
    );

    it('filters by several endpointIds (repeated or comma-separated) and by version', async () => {
      expect(
        (await list('endpointId=meter-001,meter-004&endpointId=tracker-002')).content.map((e: any) => e.endpointId),
      ).toEqual(['meter-001', 'meter-004', 'tracker-002']);
      expect((await list('applicationVersionName=smart-meter-v2')).content.map((e: any) => e.endpointId)).toEqual([
        'meter-004',
        'meter-005',
        'meter-006',
      ]);
    });

    it('pages with offset and limit (default 100, 0 = all)', async () => {
      const page = await list('applicationName=smart-meter&offset=2&limit=2');
      expect(page.totalElements).toBe(6);
      expect(page.content.map((e: any) => e.endpointId)).toEqual(['meter-003', 'meter-004']);
      expect((await list('applicationName=smart-meter&limit=0')).content).toHaveLength(6);
    });

    it('matches one metadata key-value pair given as URL-encoded JSON', async () => {
      const q = encodeURIComponent(JSON.stringify({ location: { city: 'Munich', site: 'east' } }));
      expect((await list(`metadataFilter=${q}`)).content.map((e: any) => e.endpointId)).toEqual(['meter-004']);
      const bad = await call('GET', `${EPR}/endpoints?metadataFilter=${encodeURIComponent('{"a":1,"b":2}')}`);
      expect(bad.status).toBe(400);
      expect((await call('GET', `${EPR}/endpoints?metadataFilter=nope`)).status).toBe(400);
    });

    it('requires every filterId to match; inactive filters match nothing', async () => {
      expect((await list('filterId=berlin-meters')).content.map((e: any) => e.endpointId)).toEqual([
        'meter-001',
        'meter-002',
        'meter-006',
      ]);
      expect(
        (await list('filterId=berlin-meters&filterId=day-night-tariff')).content.map((e: any) => e.endpointId),
      ).toEqual(['meter-001', 'meter-006']);
      expect((await list('filterId=legacy-firmware')).totalElements).toBe(0);
    });

    it('includes metadata and filters on request; 400 on an unknown include', async () => {
      const body = await list('endpointId=meter-005&include=metadata,filters');
      expect(body.content[0].metadata.beta).toBe(true);
      expect(body.content[0].metadataUpdatedDate).toEqual(expect.any(String));
      expect(body.content[0].filters).toEqual(['beta-testers']);
      const bad = await call('GET', `${EPR}/endpoints?include=secrets`);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/include/);
    });

    it('400 names a bad offset or limit', async () => {
      const response = await call('GET', `${EPR}/endpoints?limit=-1`);
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/limit/);
    });

    it('has an ETag for the state of the list: 304 while unchanged, 200 after a registration', async () => {
      const first = await call('GET', `${EPR}/endpoints`);
      const etag = first.headers.get('etag')!;
      expect(etag).toBeTruthy();
      const again = await call('GET', `${EPR}/endpoints`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      await call('POST', `${EPR}/endpoints`, {
        body: { appVersion: { name: 'tracker-v1' }, endpointId: 'etag-probe' },
      });
      expect((await call('GET', `${EPR}/endpoints`, { headers: { 'if-none-match': etag } })).status).toBe(200);
    });
  });

  describe('GET /endpoints/{endpointId}', () => {
    it('answers with ETag and Last-Modified, and 304 for either condition', async () => {
      const first = await call('GET', `${EPR}/endpoints/meter-002`);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      const lastModified = first.headers.get('last-modified')!;
      expect(etag).toMatch(/^".+"$/);
      expect(new Date(lastModified).getTime()).not.toBeNaN();
      expect((await call('GET', `${EPR}/endpoints/meter-002`, { headers: { 'if-none-match': etag } })).status).toBe(
        304,
      );
      expect(
        (await call('GET', `${EPR}/endpoints/meter-002`, { headers: { 'if-modified-since': lastModified } })).status,
      ).toBe(304);
      expect(
        (
          await call('GET', `${EPR}/endpoints/meter-002`, {
            headers: { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
          })
        ).status,
      ).toBe(200);
      expect(
        (await call('GET', `${EPR}/endpoints/meter-002`, { headers: { 'if-none-match': '"other"' } })).status,
      ).toBe(200);
    });

    it('400 on a bad include, 404 for an unknown id or another tenant’s endpoint', async () => {
      expect((await call('GET', `${EPR}/endpoints/meter-002?include=everything`)).status).toBe(400);
      const missing = await call('GET', `${EPR}/endpoints/nope`);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toMatch(/nope/);
      expect((await call('GET', `${EPR}/endpoints/thermo-001`)).status).toBe(404);
      expect((await call('GET', `${EPR}/endpoints/${encodeURIComponent('../../etc/passwd')}`)).status).toBe(404);
    });

    it('is also served at the bare /api/v1', async () => {
      const bare = await call('GET', '/api/v1/endpoints/meter-002');
      expect(bare.status).toBe(200);
      expect(bare.body.endpointId).toBe('meter-002');
    });
  });

  describe('with auth on, tenants are isolated', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const call2 = api(secured);
    const globex = await tokenFor(secured, { tenant: 'globex' });
    const acme = await tokenFor(secured, { tenant: 'acme' });

    it('a globex token sees only globex endpoints, and acme’s are 404', async () => {
      const list = await call2('GET', `${EPR}/endpoints`, { token: globex });
      expect(list.body.content.map((e: any) => e.endpointId)).toEqual(['thermo-001', 'thermo-002']);
      expect((await call2('GET', `${EPR}/endpoints/meter-001`, { token: globex })).status).toBe(404);
      expect((await call2('GET', `${EPR}/endpoints/meter-001`, { token: acme })).status).toBe(200);
    });

    it('a tenant cannot register into another tenant’s application version', async () => {
      const response = await call2('POST', `${EPR}/endpoints`, {
        token: globex,
        body: { appVersion: { name: 'tracker-v1' } },
      });
      expect(response.status).toBe(400);
    });
  });
});
