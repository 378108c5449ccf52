import { describe, expect, it } from 'vitest';
import { ECR, json, one } from '../helpers/ecr.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('endpoint configuration registry, envelope shape (--compat ecr=envelope)', async () => {
  const emulator = await startTestEmulator({ compat: { ecr: 'envelope' } });
  const call = api(emulator);

  it('PUT answers 200 with ETag and the configuration record; GET the record', async () => {
    const put = await call('PUT', one('tracker-002', 'tracker-v1'), json({ a: [1] }));
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      configId: expect.any(String),
      config: '{"a":[1]}',
      createdDate: expect.any(String),
      updatedDate: expect.any(String),
    });
    expect(put.headers.get('etag')).toBe(`"${put.body.configId}"`);
    const again = await call('PUT', one('tracker-002', 'tracker-v1'), json({ a: [2] }));
    expect(again.status).toBe(200);
    expect(again.body.createdDate).toBe(put.body.createdDate);
    const got = await call('GET', one('tracker-002', 'tracker-v1'));
    expect(got.body).toEqual({ ...again.body });
    expect(got.headers.get('etag')).toBe(`"${again.body.configId}"`);
    expect(
      (await call('GET', one('tracker-002', 'tracker-v1'), { headers: { 'if-none-match': got.headers.get('etag')! } }))
        .status,
    ).toBe(304);
  });

  it('a text payload is a string in the record; the default configuration reads as a record too', async () => {
    await call('PUT', one('tracker-003', 'tracker-v1'), {
      rawBody: 'plain',
      headers: { 'content-type': 'text/plain' },
    });
    expect((await call('GET', one('tracker-003', 'tracker-v1'))).body.config).toBe('plain');
    const fallback = await call('GET', `${ECR}/app-versions/tracker-v1`);
    expect(fallback.body).toEqual({
      configId: expect.any(String),
      config: '{"gpsIntervalSeconds":30,"geofence":"city"}',
      createdDate: expect.any(String),
      updatedDate: expect.any(String),
    });
  });
});
