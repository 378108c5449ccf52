import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { DEFAULT_EMULATOR_URL } from './defaults.js';

export { DEFAULT_EMULATOR_URL };

/** The emulator could not be reached at all (nothing listens, DNS, refused). */
export class EmulatorUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: Error,
  ) {
    super(
      `Cannot reach the emulator at ${url}: ` +
        `${cause.message || (cause as NodeJS.ErrnoException).code || cause.name}. Is it running (platform-emu ` +
        `start)?`,
    );
  }
}

/** The emulator answered 4xx or 5xx where the caller expected success. */
export class EmulatorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly url: string,
    readonly body: unknown,
  ) {
    const reason = (body as { message?: unknown } | undefined)?.message;
    super(`${method} ${url} answered ${status}${typeof reason === 'string' ? `: ${reason}` : ''}`);
  }
}

export interface RequestOptions {
  /** Serialized as JSON, with `Content-Type: application/json` unless a header says otherwise. */
  json?: unknown;
  /** Sent as is. */
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Gives up (as unreachable) when no answer has come after this many milliseconds. Default: no limit. */
  timeoutMs?: number;
}

export interface ClientResponse {
  status: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body as received. */
  raw: Buffer;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  json: unknown;
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/**
 * One request with node's own http module: a CLI command that makes one call starts in a fraction of the time an
 * HTTP library takes to load.
 */
async function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  timeoutMs?: number,
): Promise<RawResponse> {
  const request = url.startsWith('https:') ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    if (timeoutMs !== undefined)
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A small JSON client of a running emulator (or of the real platform: it only speaks HTTP). */
export class EmulatorClient {
  readonly baseUrl: string;
  /** Sent instead of `accessToken` to the control plane (`/_emu/...`), which needs it with `--auth on`. */
  adminToken?: string;

  constructor(
    baseUrl: string,
    /** Bearer token sent with every request. */
    public accessToken?: string,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** Any request; never throws for an HTTP status, only when the emulator cannot be reached. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ClientResponse> {
    const url = this.baseUrl + (path.startsWith('/') ? path : `/${path}`);
    const headers: Record<string, string> = {};
    const bearer = this.adminToken && /^\/?_emu\//.test(path) ? this.adminToken : this.accessToken;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    let response: RawResponse;
    try {
      response = await send(url, method.toUpperCase(), headers, body, options.timeoutMs);
    } catch (err) {
      throw new EmulatorUnreachableError(this.baseUrl, err as Error);
    }
    const { raw } = response;
    return {
      status: response.status,
      method: method.toUpperCase(),
      url,
      headers: flatHeaders(response.headers),
      raw,
      json: parseJson(raw),
    };
  }

  /** A request whose success is expected: the parsed body, or an EmulatorHttpError. */
  async json<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ body: T; response: ClientResponse }> {
    const response = await this.request(method, path, body === undefined ? {} : { json: body });
    if (response.status >= 400)
      throw new EmulatorHttpError(response.status, response.method, response.url, response.json);
    return { body: response.json as T, response };
  }

  /** `GET /_emu/health`: the emulator's URLs (REST, MQTT), auth mode and default tenant. */
  async health(): Promise<EmulatorHealth> {
    return (await this.json<EmulatorHealth>('GET', '/_emu/health')).body;
  }

  /** A test token from the emulator's control plane (`POST /_emu/token`), as `platform-emu token` gets it. */
  async issueToken(request: { tenant?: string; scopes?: string[] } = {}): Promise<string> {
    return (await this.json<{ token: string }>('POST', '/_emu/token', request)).body.token;
  }
}

export interface EmulatorHealth {
  status: string;
  url?: string;
  auth?: 'on' | 'off';
  /** The device gateway: `mqtt://host:port`. */
  mqtt?: { url?: string; port?: number };
  defaultTenant?: string;
  [field: string]: unknown;
}
