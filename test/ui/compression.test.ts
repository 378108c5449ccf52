import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { COMPRESS_THRESHOLD } from '../../src/server/compress.js';
import { registerEndpoint } from '../gateway/device.js';
import { startTestEmulator } from '../helpers/emulator.js';

/** A GET with the given Accept-Encoding, the body as received (not decompressed). */
function get(base: string, path: string, acceptEncoding?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const headers = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
    const req = request(`${base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** src/server/compress.ts, over real HTTP: what the dashboard's large reads (lists, connection states) travel as. */
describe('JSON answers over the size threshold are compressed for clients that accept it', async () => {
  const emulator = await startTestEmulator();
  for (let i = 0; i < 30; i++) await registerEndpoint(emulator, 'smart-meter-v1', { note: 'x'.repeat(40) });

  it('gzips a large list, and it reads back as the same JSON', async () => {
    const large = '/epr/api/v1/endpoints?include=metadata&limit=100';
    const plain = await get(emulator.url, large);
    expect(plain.body.length).toBeGreaterThan(COMPRESS_THRESHOLD);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzipped = await get(emulator.url, large, 'gzip, deflate, br');
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(gzipped.headers['content-type']).toMatch(/^application\/json/);
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(JSON.parse(gunzipSync(gzipped.body).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')));
  });

  it('sends small answers and errors as they are', async () => {
    const small = await get(emulator.url, '/epr/api/v1/endpoints/meter-001', 'gzip');
    expect(small.body.length).toBeLessThan(COMPRESS_THRESHOLD);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8')).endpointId).toBe('meter-001');
    const missing = await get(emulator.url, '/epr/api/v1/endpoints/nobody', 'gzip');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(missing.body.toString('utf8')).message).toContain('nobody');
  });

  it("compresses the control plane's large answers too", async () => {
    const journal = await get(emulator.url, '/_emu/requests?limit=200', 'gzip');
    expect(journal.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(journal.body).toString('utf8')).length).toBeGreaterThanOrEqual(30);
  });
});
