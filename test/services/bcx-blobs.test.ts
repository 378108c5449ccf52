import { describe, expect, it } from 'vitest';
import { BCX, download, SM, upload, uploadToken } from '../helpers/bcx.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('binary data collection', () => {
  describe('blobs', async () => {
    const own = await startTestEmulator();
    const call = api(own);
    const meter1 = await uploadToken(own, 'meter-001-token');
    const meter2 = await uploadToken(own, 'meter-002-token');
    const payload = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
    const first = await upload(own, '/binary-data?name=Photo-A', payload, meter1);
    const second = await upload(own, '/binary-data?name=log', 'second', meter1);
    const other = await upload(own, '/binary-data?name=photo-b', '', meter2);

    it('answers 201 with Location and the descriptor; the upload is bound to the token’s endpoint', async () => {
      expect(first.status, first.text).toBe(201);
      const id = first.body.id;
      expect(first.headers.get('location')).toBe(`${own.url}${SM}/endpoints/meter-001/binary-data/${id}`);
      expect(first.body).toEqual({
        id,
        name: 'Photo-A',
        url: `${own.url}${SM}/endpoints/meter-001/binary-data/${id}/data`,
        size: 3000,
        createdDate: expect.any(String),
      });
      expect(other.body.size).toBe(0);
      const listed = (await call('GET', `${SM}/binary-data/list`)).body;
      expect(listed.map((b: { endpointId: string; name: string }) => `${b.endpointId}:${b.name}`)).toEqual([
        'meter-001:Photo-A',
        'meter-001:log',
        'meter-002:photo-b',
      ]);
    });

    it('downloads a payload as an octet-stream attachment named <id>.bin', async () => {
      const got = await download(own, `${SM}/endpoints/meter-001/binary-data/${first.body.id}/data`);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('application/octet-stream');
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${first.body.id}.bin"`);
      expect(got.headers.get('content-length')).toBe('3000');
      expect(got.bytes.equals(payload)).toBe(true);
      const empty = await download(own, `${SM}/endpoints/meter-002/binary-data/${other.body.id}/data`);
      expect([empty.status, empty.bytes.length]).toEqual([200, 0]);
    });

    it('data/last is the endpoint’s newest payload', async () => {
      const got = await download(own, `${SM}/endpoints/meter-001/binary-data/data/last`);
      expect(got.bytes.toString()).toBe('second');
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${second.body.id}.bin"`);
      expect((await call('GET', `${SM}/endpoints/meter-003/binary-data/data/last`)).status).toBe(404);
    });

    it('GET .../binary-data groups by endpoint, fromDate and toDate required', async () => {
      const range = 'fromDate=2000-01-01T00:00:00Z&toDate=2100-01-01T00:00:00Z';
      const grouped = await call('GET', `${SM}/binary-data?${range}`);
      expect(grouped.body.map((group: object) => Object.keys(group))).toEqual([['meter-001'], ['meter-002']]);
      expect(grouped.body[0]['meter-001'].map((b: { name: string }) => b.name)).toEqual(['Photo-A', 'log']);
      const descending = await call('GET', `${SM}/binary-data?${range}&sort=DESC&endpointId=meter-001`);
      expect(descending.body).toEqual([
        { 'meter-001': [expect.objectContaining({ name: 'log' }), expect.objectContaining({ name: 'Photo-A' })] },
      ]);
      expect(
        (await call('GET', `${SM}/binary-data?${range}&endpointId=meter-002,meter-009`)).body.map(
          (g: object) => Object.keys(g)[0],
        ),
      ).toEqual(['meter-002']);
      const past = await call('GET', `${SM}/binary-data?fromDate=2000-01-01T00:00:00Z&toDate=2000-01-02T00:00:00Z`);
      expect(past.body).toEqual([]);
      for (const query of ['fromDate=2000-01-01T00:00:00Z', 'toDate=2100-01-01T00:00:00Z', '']) {
        const missing = await call('GET', `${SM}/binary-data?${query}`);
        expect(missing.status).toBe(400);
        expect(missing.body.message).toMatch(/(fromDate|toDate) is required/);
      }
    });

    it(
      'GET .../binary-data/list filters by endpointId, part of the name (any case), dates; pages and ' + 'sorts',
      async () => {
        const names = async (query: string) =>
          (await call('GET', `${SM}/binary-data/list?${query}`)).body.map((b: { name: string }) => b.name);
        expect(await names('name=PHOTO')).toEqual(['Photo-A', 'photo-b']);
        expect(await names('endpointId=meter-002')).toEqual(['photo-b']);
        expect(await names('sort=DESC&limit=2')).toEqual(['photo-b', 'log']);
        expect(await names('offset=1&limit=1')).toEqual(['log']);
        expect(await names(`fromDate=${encodeURIComponent(second.body.createdDate)}`)).toEqual(
          expect.arrayContaining(['log', 'photo-b']),
        );
        expect(await names('toDate=2000-01-01T00:00:00Z')).toEqual([]);
        for (const query of [
          'sort=up',
          'limit=-1',
          'fromDate=soon',
          'fromDate=2024-02-01T00:00:00Z&toDate=2024-01-01T00:00:00Z',
        ]) {
          expect((await call('GET', `${SM}/binary-data/list?${query}`)).status, query).toBe(400);
        }
      },
    );

    it('deletes a blob (204), after which it is 404; another endpoint’s blob is 404 on this endpoint', async () => {
      const doomed = await upload(own, '/binary-data?name=doomed', 'bye', meter1);
      expect((await call('DELETE', `${SM}/endpoints/meter-002/binary-data/${doomed.body.id}`)).status).toBe(404);
      expect((await call('DELETE', `${SM}/endpoints/meter-001/binary-data/${doomed.body.id}`)).status).toBe(204);
      expect((await call('DELETE', `${SM}/endpoints/meter-001/binary-data/${doomed.body.id}`)).status).toBe(404);
      expect((await call('GET', `${SM}/endpoints/meter-001/binary-data/${doomed.body.id}/data`)).status).toBe(404);
    });

    it.each([
      [`${BCX}/applications/nope/binary-data/list`, /no application nope/],
      [`${BCX}/applications/thermostat/files`, /no application thermostat/],
      [`${SM}/endpoints/tracker-001/binary-data/data/last`, /no endpoint tracker-001 in application smart-meter/],
      [`${SM}/endpoints/meter-001/binary-data/999/data`, /no binary data 999/],
    ])('GET %s is 404', async (path, message) => {
      const response = await call('GET', path);
      expect(response.status).toBe(404);
      expect(response.body.message).toMatch(message);
    });
  });
});
