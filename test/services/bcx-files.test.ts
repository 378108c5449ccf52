import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/index.js';
import { BCX, download, SM, upload, uploadToken } from '../helpers/bcx.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

/** A POST whose path goes out exactly as written (fetch would resolve `..` and `%2E%2E` segments first). */
function rawPost(
  emulator: RunningEmulator,
  path: string,
  body: string,
  token: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${emulator.url}/`,
      { method: 'POST', path, headers: { 'x-auth-token': token, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('binary data collection', () => {
  describe('files', async () => {
    const own = await startTestEmulator();
    const call = api(own);
    const meter1 = await uploadToken(own, 'meter-001-token');
    const meter3 = await uploadToken(own, 'meter-003-token');

    it('uploads (204) and overwrites (204, createdDate kept); the url downloads it', async () => {
      expect((await upload(own, '/files/report.csv', 'a,b\n1,2\n', meter1)).status).toBe(204);
      const before = (await call('GET', `${SM}/files?name=report`)).body.content[0];
      const overwritten = await upload(own, '/files/report.csv', 'a,b\n3,4\n5,6\n', meter1);
      expect(overwritten.status).toBe(204);
      expect(overwritten.text).toBe('');
      const listed = await call('GET', `${SM}/files?name=report`);
      expect(listed.body).toEqual({
        content: [
          {
            name: 'report.csv',
            endpointId: 'meter-001',
            url: `${own.url}${SM}/endpoints/meter-001/files/report.csv/data`,
            size: 12,
            createdDate: before.createdDate,
            updatedDate: expect.any(String),
          },
        ],
        totalElements: 1,
      });
      const got = await download(own, listed.body.content[0].url.slice(own.url.length));
      expect(got.bytes.toString()).toBe('a,b\n3,4\n5,6\n');
      expect(got.headers.get('content-disposition')).toBe('attachment; filename="report.csv.bin"');
    });

    it('keeps files per endpoint, and lists with every parameter (limit 20 by default)', async () => {
      for (let i = 0; i < 22; i++)
        expect((await upload(own, `/files/cam-${String(i).padStart(2, '0')}.jpg`, `img ${i}`, meter3)).status).toBe(
          204,
        );
      await upload(own, '/files/report.csv', 'meter 3 report', meter3);
      const list = async (query: string) => (await call('GET', `${SM}/files?${query}`)).body;
      const all = await list('endpointId=meter-003');
      expect(all.totalElements).toBe(23);
      expect(all.content).toHaveLength(20);
      expect((await list('endpointId=meter-003&limit=0')).content).toHaveLength(23);
      expect((await list('name=CAM-2&endpointId=meter-003')).content.map((f: { name: string }) => f.name)).toEqual([
        'cam-20.jpg',
        'cam-21.jpg',
      ]);
      expect(
        (await list('name=report&endpointId=meter-001,meter-003')).content.map(
          (f: { endpointId: string }) => f.endpointId,
        ),
      ).toEqual(['meter-001', 'meter-003']);
      expect((await list('endpointId=meter-003&sort=DESC&limit=1')).content[0].name).toBe('report.csv');
      expect((await list('endpointId=meter-003&offset=22')).content.map((f: { name: string }) => f.name)).toEqual([
        'report.csv',
      ]);
      expect((await list('toDate=2000-01-01T00:00:00Z')).totalElements).toBe(0);
      expect((await call('GET', `${SM}/files?fromDate=yesterday`)).status).toBe(400);
    });

    // The path segments as sent (percent-encoded), so that no client normalizes them away first.
    it.each([
      ['..', '..'],
      ['.. (encoded)', '%2E%2E'],
      ['../secret', '..%2Fsecret'],
      ['a/b', 'a%2Fb'],
      ['a\\b', 'a%5Cb'],
      ['..\\..\\x', '..%5C..%5Cx'],
      ['with NUL', 'a%00b'],
      ['x..y', 'x..y'],
      ['of 256 bytes', encodeURIComponent('é'.repeat(128))],
    ])('refuses the file name %s with 400 and keeps nothing', async (_what, segment) => {
      const response = await rawPost(own, `${BCX}/files/${segment}`, 'evil', meter1);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.message).toMatch(/Invalid file name/);
    });

    it('takes a name of 255 bytes and names with other characters as they are', async () => {
      for (const name of ['é'.repeat(127) + 'a', 'with space & "quote".txt', '.hidden']) {
        const response = await upload(own, `/files/${encodeURIComponent(name)}`, 'ok', meter1);
        expect(response.status, `${name}: ${response.text}`).toBe(204);
      }
      const names = (await call('GET', `${SM}/files?endpointId=meter-001&limit=0`)).body.content.map(
        (f: { name: string }) => f.name,
      );
      expect(names).toEqual(expect.arrayContaining(['é'.repeat(127) + 'a', 'with space & "quote".txt', '.hidden']));
      expect(names.some((n: string) => n.includes('evil') || n.includes('..'))).toBe(false);
      const quoted = await download(
        own,
        `${SM}/endpoints/meter-001/files/${encodeURIComponent('with space & "quote".txt')}/data`,
      );
      expect(quoted.headers.get('content-disposition')).toMatch(
        /^attachment; filename="with space & \\"quote\\".txt.bin"/,
      );
    });
  });
});
