import { describe, expect, it } from 'vitest';
import { openStream } from '../helpers/event-stream.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const META = '/epr/api/v1/endpoints/meter-001/metadata';

describe(
  'endpoint metadata over REST (an addition: the web-dashboard tutorial saves a location this ' + 'way)',
  async () => {
    const emulator = await startTestEmulator();
    const call = api(emulator);

    it('reads the metadata, its keys and one value; 404 for an absent key or endpoint', async () => {
      const all = await call('GET', META);
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ model: 'SM-100', location: { city: 'Berlin', site: 'north' } });
      expect(all.headers.get('etag')).toMatch(/^"\d+"$/);
      expect((await call('GET', `${META}/keys`)).body).toEqual(Object.keys(all.body));
      expect((await call('GET', `${META}/model`)).body).toBe('SM-100');
      const absent = await call('GET', `${META}/nothing_here`);
      expect(absent.status).toBe(404);
      expect(absent.body.message).toMatch(/no metadata key nothing_here/);
      expect((await call('GET', '/epr/api/v1/endpoints/no-such-endpoint/metadata')).status).toBe(404);
      expect((await call('GET', `${META}`, { headers: { 'If-None-Match': all.headers.get('etag')! } })).status).toBe(
        304,
      );
    });

    it("hides another tenant's endpoint as absent", async () => {
      expect((await call('GET', '/epr/api/v1/endpoints/thermo-001/metadata')).status).toBe(404);
      expect((await call('PUT', '/epr/api/v1/endpoints/thermo-001/metadata/room', { body: 'attic' })).status).toBe(404);
    });

    it(
      'PUT of one key takes any JSON (a string, as the tutorial sends), answers the new metadata and a new ' + 'ETag',
      async () => {
        const before = await call('GET', META);
        const saved = await call('PUT', `${META}/location`, { body: 'Kyiv' });
        expect(saved.status, saved.text).toBe(200);
        expect(saved.body).toEqual({ ...before.body, location: 'Kyiv' });
        expect(saved.headers.get('etag')).not.toBe(before.headers.get('etag'));
        for (const value of [null, 42, [1, { a: true }], { lat: 50.45, lon: 30.52 }]) {
          const put = await call('PUT', `${META}/place`, { body: value });
          expect(put.status, put.text).toBe(200);
          expect((await call('GET', `${META}/place`)).body).toEqual(value);
        }
        const endpoint = await call('GET', '/epr/api/v1/endpoints/meter-001?include=metadata');
        expect(endpoint.body.metadata.location).toBe('Kyiv');
        expect(endpoint.headers.get('etag')).toBe((await call('GET', META)).headers.get('etag'));
      },
    );

    it('PATCH merges, PUT replaces, DELETE of a key answers 204 and 404 once it is gone', async () => {
      const merged = await call('PATCH', META, { body: { floor: 3, model: 'SM-200' } });
      expect(merged.status, merged.text).toBe(200);
      expect(merged.body).toMatchObject({ floor: 3, model: 'SM-200', serial: 'SM100-0001' });
      const replaced = await call('PUT', META, { body: { serial: 'X1', floor: 3 } });
      expect(replaced.body).toEqual({ serial: 'X1', floor: 3 });
      const deleted = await call('DELETE', `${META}/floor`);
      expect(deleted.status).toBe(204);
      expect(deleted.headers.get('etag')).toBeTruthy();
      expect((await call('GET', META)).body).toEqual({ serial: 'X1' });
      expect((await call('DELETE', `${META}/floor`)).status).toBe(404);
    });

    it('If-Match with another version is 412 and changes nothing; the current one is accepted', async () => {
      const current = await call('GET', META);
      const etag = current.headers.get('etag')!;
      await call('PATCH', META, { body: { touched: true } });
      const stale = await call('PUT', `${META}/serial`, { body: 'stale', headers: { 'If-Match': etag } });
      expect(stale.status).toBe(412);
      expect((await call('GET', `${META}/serial`)).body).toBe(current.body.serial);
      const fresh = (await call('GET', META)).headers.get('etag')!;
      expect((await call('DELETE', `${META}/touched`, { headers: { 'If-Match': fresh } })).status).toBe(204);
    });

    it.each([
      ['PUT', META, { 'bad-key': 1 }, /has a key "bad-key"/],
      ['PATCH', META, ['not', 'an', 'object'], /must be a JSON object/],
      ['PUT', `${META}/bad-key`, 1, /letters, digits and underscores/],
      ['DELETE', `${META}/bad.key`, undefined, /letters, digits and underscores/],
    ])('%s %s with %j is 400 without an ETag, and nothing changes', async (method, path, body, message) => {
      const before = await call('GET', META);
      const response = await call(method, path, { body });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
      expect(response.headers.get('etag')).toBeNull();
      expect((await call('GET', META)).body).toEqual(before.body);
    });

    it('a REST write reaches the event stream as a KP1 metadata change does', async () => {
      const stream = await openStream(emulator.url, '?types=endpoint');
      try {
        await call('PUT', `${META}/location`, { body: 'Lviv' });
        const event = await stream.next((e) => e.event === 'endpoint' && e.data.endpointId === 'meter-001');
        expect(event.data).toMatchObject({ tenantId: 'acme', change: 'metadata' });
      } finally {
        await stream.close();
      }
    });
  },
);

describe('endpoint metadata scopes', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);

  it('reads need endpoint:read, writes endpoint:update', async () => {
    const reader = await tokenFor(emulator, { scopes: ['endpoint:read'] });
    const writer = await tokenFor(emulator, { scopes: ['endpoint:update'] });
    expect((await call('GET', META)).status).toBe(401);
    expect((await call('GET', `${META}/keys`, { token: reader })).status).toBe(200);
    expect((await call('GET', `${META}/keys`, { token: writer })).status).toBe(403);
    expect((await call('PUT', `${META}/location`, { body: 'Kyiv', token: reader })).status).toBe(403);
    expect((await call('PUT', `${META}/location`, { body: 'Kyiv', token: writer })).status).toBe(200);
  });
});
