import { createHash } from 'node:crypto';
import { request } from 'node:http';

/**
 * What is compared of an answer: status, the headers the router sets or shapes, and the body's bytes (hashed).
 * @param {string} base
 * @param {{ method: string, path: string, body?: string }} request
 */
export function answerOf(base, { method, path, body }) {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({
            status: res.statusCode,
            allow: res.headers.allow ?? null,
            contentType: res.headers['content-type'] ?? null,
            contentLength: res.headers['content-length'] ?? null,
            answer: bytes.length <= 200 ? bytes.toString('utf8') : createHash('sha256').update(bytes).digest('hex'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
