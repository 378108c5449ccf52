import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';

/** One POST with exactly these bytes and headers (fetch would add its own Content-Type); resolves status and text. */
function post(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  chunked = false,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/epr/api/v1/endpoints`,
      { method: 'POST', headers: chunked ? headers : { ...headers, 'content-length': String(body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    if (chunked) {
      // Two writes before the end: node:http sends them chunked, which only body-parser reads.
      req.write(body.subarray(0, 1));
      req.end(body.subarray(1));
    } else req.end(body);
  });
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const bodies: Record<string, Buffer> = {
  'malformed JSON': Buffer.from('{"a":'),
  'an unterminated array': Buffer.from('[1,2'),
  'an empty body': Buffer.alloc(0),
  'a byte order mark': Buffer.concat([BOM, Buffer.from('{"appVersion":{"name":"no-such-version"}}')]),
  'a string': Buffer.from('"text"'),
  null: Buffer.from('null'),
  'bytes that are not UTF-8': Buffer.concat([
    Buffer.from('{"appVersion":{"name":"'),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.from('"}}'),
  ]),
  'nesting past the limit': Buffer.from('{"metadata":' + '{"a":'.repeat(200) + '1' + '}'.repeat(201)),
  // Many socket reads: the parse error's position is counted over the whole body.
  'a large body broken at its end': Buffer.from(`{"metadata":{"pad":"${'x'.repeat(600_000)}"},`),
};

describe('a JSON body read by the lean reader answers exactly as body-parser does', async () => {
  const emulator = await startTestEmulator();

  // `; charset=utf-8` sends the same body through body-parser (the reader takes only a Content-Type without
  // parameters): the two answers must be the same bytes.
  for (const [name, body] of Object.entries(bodies)) {
    it(`${name}`, async () => {
      const lean = await post(emulator.url, body, { 'content-type': 'application/json' });
      const parser = await post(emulator.url, body, { 'content-type': 'application/json; charset=utf-8' });
      const untyped = await post(emulator.url, body, {});
      expect(lean.status).toBeGreaterThanOrEqual(400);
      expect(lean).toEqual(parser);
      expect(untyped).toEqual(parser);
    });
  }

  it('a valid body is stored by either reader, chunked or not', async () => {
    const body = (id: string) => Buffer.from(JSON.stringify({ endpointId: id, appVersion: { name: 'tracker-v1' } }));
    const lean = await post(emulator.url, body('lean-1'), { 'content-type': 'application/json' });
    const chunked = await post(emulator.url, body('chunked-1'), { 'content-type': 'application/json' }, true);
    expect([lean.status, chunked.status]).toEqual([201, 201]);
    for (const id of ['lean-1', 'chunked-1'])
      expect((await fetch(`${emulator.url}/epr/api/v1/endpoints/${id}`)).status).toBe(200);
  });

  it('a Content-Length over the limit is 413 before anything is read', async () => {
    const big = Buffer.from(JSON.stringify({ metadata: { pad: 'x'.repeat(1024 * 1024) } }));
    const answer = await post(emulator.url, big, { 'content-type': 'application/json' });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text).message).toMatch(/larger than the limit of 1048576 bytes/);
  });
});
