import { request } from 'node:http';

/** One request with node:http: on a fresh connection (no client warm-up cost inside a timing), or through `agent`. */
export function httpRequest(url, { method = 'GET', headers = {}, body, agent = false } = {}) {
  return new Promise((resolve, reject) => {
    const payload =
      body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const buffer = Buffer.concat(chunks);
          resolve({ status: res.statusCode, headers: res.headers, buffer, text: buffer.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export async function httpJson(url, options) {
  const response = await httpRequest(url, options);
  if (response.status >= 300)
    throw new Error(`${options?.method ?? 'GET'} ${url}: ${response.status} ${response.text}`);
  return JSON.parse(response.text);
}
