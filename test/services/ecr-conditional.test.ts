import { describe, expect, it } from 'vitest';
import { json, one, trackerRegistrar } from '../helpers/ecr.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('endpoint configuration registry', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const newTracker = trackerRegistrar(call);

  describe('optimistic locking and conditional reads', () => {
    it('If-Match: the current configId passes (quoted or not); another gives 412 and changes nothing', async () => {
      const id = await newTracker();
      const etag = (await call('PUT', one(id, 'tracker-v1'), json({ v: 1 }))).headers.get('etag')!;
      const stale = await call('PUT', one(id, 'tracker-v1'), {
        ...json({ v: 'lost' }),
        headers: { 'content-type': 'application/json', 'if-match': '"not-the-id"' },
      });
      expect(stale.status).toBe(412);
      expect(stale.body.message).toMatch(/nothing was changed/);
      expect((await call('GET', one(id, 'tracker-v1'))).body).toEqual({ v: 1 });
      const next = await call('PUT', one(id, 'tracker-v1'), {
        ...json({ v: 2 }),
        headers: { 'content-type': 'application/json', 'if-match': etag },
      });
      expect(next.status).toBe(204);
      const unquoted = next.headers.get('etag')!.replace(/"/g, '');
      const third = await call('PUT', one(id, 'tracker-v1'), {
        ...json({ v: 3 }),
        headers: { 'content-type': 'application/json', 'if-match': unquoted },
      });
      expect(third.status).toBe(204);
      expect((await call('GET', one(id, 'tracker-v1'))).body).toEqual({ v: 3 });
    });

    it('If-Match on an endpoint without a configuration gives 412 (nothing to match)', async () => {
      const id = await newTracker();
      const response = await call('PUT', one(id, 'tracker-v1'), {
        ...json({ v: 1 }),
        headers: { 'content-type': 'application/json', 'if-match': '"x"' },
      });
      expect(response.status).toBe(412);
      expect((await call('GET', one(id, 'tracker-v1'))).status).toBe(404);
    });

    it('If-Unmodified-Since: a date before the last update gives 412, a later one passes', async () => {
      const id = await newTracker();
      await call('PUT', one(id, 'tracker-v1'), json({ v: 1 }));
      const headers = (date: string) => ({ 'content-type': 'application/json', 'if-unmodified-since': date });
      const before = await call('PUT', one(id, 'tracker-v1'), {
        ...json({ v: 2 }),
        headers: headers('Mon, 01 Jan 2001 00:00:00 GMT'),
      });
      expect(before.status).toBe(412);
      const deleteBefore = await call('DELETE', one(id, 'tracker-v1'), {
        headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' },
      });
      expect(deleteBefore.status).toBe(412);
      expect((await call('GET', one(id, 'tracker-v1'))).body).toEqual({ v: 1 });
      const later = await call('PUT', one(id, 'tracker-v1'), {
        ...json({ v: 3 }),
        headers: headers(new Date(Date.now() + 3_600_000).toUTCString()),
      });
      expect(later.status).toBe(204);
    });

    it('DELETE with a stale If-Match gives 412 and keeps the configuration', async () => {
      const id = await newTracker();
      const etag = (await call('PUT', one(id, 'tracker-v1'), json({ v: 1 }))).headers.get('etag')!;
      expect((await call('DELETE', one(id, 'tracker-v1'), { headers: { 'if-match': '"old"' } })).status).toBe(412);
      expect((await call('GET', one(id, 'tracker-v1'))).status).toBe(200);
      expect((await call('DELETE', one(id, 'tracker-v1'), { headers: { 'if-match': etag } })).status).toBe(204);
    });

    it('two concurrent PUTs with the same If-Match: exactly one wins, the other gets 412', async () => {
      const id = await newTracker();
      const etag = (await call('PUT', one(id, 'tracker-v1'), json({ v: 0 }))).headers.get('etag')!;
      const attempt = (v: string) =>
        call('PUT', one(id, 'tracker-v1'), {
          ...json({ v }),
          headers: { 'content-type': 'application/json', 'if-match': etag },
        });
      const results = await Promise.all([attempt('a'), attempt('b')]);
      expect(results.map((r) => r.status).sort()).toEqual([204, 412]);
      const winner = results.find((r) => r.status === 204)!;
      const stored = await call('GET', one(id, 'tracker-v1'));
      expect(stored.headers.get('etag')).toBe(winner.headers.get('etag'));
      expect(['a', 'b']).toContain(stored.body.v);
    });

    it('conditional GETs: If-None-Match with the configId and If-Modified-Since give 304 without a body', async () => {
      const id = await newTracker();
      const etag = (await call('PUT', one(id, 'tracker-v1'), json({ v: 1 }))).headers.get('etag')!;
      const byTag = await call('GET', one(id, 'tracker-v1'), { headers: { 'if-none-match': etag } });
      expect(byTag.status).toBe(304);
      expect(byTag.text).toBe('');
      const lastModified = (await call('GET', one(id, 'tracker-v1'))).headers.get('last-modified')!;
      expect(
        (await call('GET', one(id, 'tracker-v1'), { headers: { 'if-modified-since': lastModified } })).status,
      ).toBe(304);
      expect((await call('GET', one(id, 'tracker-v1'), { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    });
  });
});
