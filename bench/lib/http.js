import { request } from 'node:http';

/** One request with node:http: on a fresh connection (no client warm-up cost inside a timing), or through `agent`. */
/**
 * One request. One that a kept-alive connection failed with ECONNRESET before any answer is sent once more on a new
 * connection: the server closed that idle connection in the same moment it was reused (node's documented race,
 * `request.reusedSocket`), so it never read the request.
 */
export function httpRequest(url, options = {}) {
  return sendRequest(url, options).catch((err) => {
    if (err.code !== 'ECONNRESET' || !err.reusedSocket) throw err;
    return sendRequest(url, options);
  });
}

function sendRequest(url, { method = 'GET', headers = {}, body, agent = false } = {}) {
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
    req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
    req.end(payload);
  });
}

export async function httpJson(url, options) {
  const response = await httpRequest(url, options);
  if (response.status >= 300)
    throw new Error(`${options?.method ?? 'GET'} ${url}: ${response.status} ${response.text}`);
  return JSON.parse(response.text);
}
