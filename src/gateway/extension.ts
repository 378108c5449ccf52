import type { EmuContext } from '../context.js';
import { HttpError } from '../server/errors.js';
import { matchTemplate } from '../server/path-template.js';
import type { Endpoint } from '../services/epr/endpoints.js';
import { isPlainObject } from '../store/index.js';

/** What a resource handler gets: the endpoint the token resolved to, the path parameters and the payload. */
export interface Kp1Request {
  ctx: EmuContext;
  endpoint: Endpoint;
  /** Values of the `{name}` levels of the resource path. */
  params: Record<string, string>;
  /** The payload parsed as JSON; `undefined` when it was empty. Resources with `payload: 'raw'` get `undefined`. */
  payload: unknown;
  raw: Buffer;
  requestId?: number;
  transport: 'mqtt' | 'http';
}

export interface Kp1Result {
  /**
   * The success payload; absent means a zero-length payload (spec 4: `epmx` updates, `dcx`, `cex` results,
   * `applied/json`).
   */
  payload?: unknown;
  /**
   * `true`/`false` when the request asked to start/stop receiving pushes for this resource (`cex` command, `cmx`
   * config).
   */
  observe?: boolean;
}

export interface Kp1Resource {
  /** Levels after the token, `{name}` for a parameter: `command/{commandType}`, `get/keys`; `''` for none (`tsx`). */
  path: string;
  /** `json` (default): the payload must be empty or JSON. `raw`: the handler reads `raw` itself (`dcx` plain). */
  payload?: 'json' | 'raw';
  /** Whether the `{name}` values taken name this resource; absent: any value does. */
  accepts?(params: Record<string, string>): boolean;
  handle(request: Kp1Request): Kp1Result | Promise<Kp1Result>;
}

/**
 * One KP1 extension: a folder under src/gateway/extensions, one line in its index. It parses its resources and
 * payloads and calls the owning service's domain functions; topics, tokens and replies are the gateway core's.
 */
export interface Kp1Extension {
  name: string;
  resources: Kp1Resource[];
  /**
   * An MQTT connection started speaking for the endpoint: its first message with the token was handled and answered.
   * Pushes (`ctx.devices.push`) what a device should hear of on connecting, unless it was `told` of that resource
   * already (`<extension>/<resource>`: its first request asked it, or that request caused its push).
   */
  connected?(ctx: EmuContext, endpoint: Endpoint, told: ReadonlySet<string>): void;
}

/**
 * A KP1 error reply: `{ statusCode, reasonPhrase }`. The shared `HttpError` is the same thing, and either may be
 * thrown.
 */
export const kp1Error = (statusCode: number, reasonPhrase: string) => new HttpError(statusCode, reasonPhrase);
export const invalidPayload = (reasonPhrase: string) => kp1Error(400, reasonPhrase);

/** Matches resource levels against a resource path; the parameters on success. */
export function matchResource(resource: Kp1Resource, levels: readonly string[]) {
  const params = matchTemplate(resource.path, levels);
  return params && (resource.accepts?.(params) ?? true) ? params : undefined;
}

/** A JSON object (not an array, not null): the store's test, at hand for extensions. */
export { isPlainObject };

/** An optional request object (`{}` or empty) with only the named fields; anything else is a 400 naming the problem. */
export function optionalObject(payload: unknown, allowed: readonly string[], what: string): Record<string, unknown> {
  if (payload === undefined) return {};
  if (!isPlainObject(payload))
    throw invalidPayload(`The ${what} payload must be a JSON object (or empty); got ${describeValue(payload)}.`);
  const unknown = Object.keys(payload).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw invalidPayload(
      `The ${what} payload has unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; allowed: ` +
        `${allowed.join(', ') || 'none'}.`,
    );
  }
  return payload;
}

/**
 * A request object that must be there (`cmx` `config/json`, `cex` `command/<type>`: 7/CMP and 11/CEP say "MUST be a
 * UTF-8 encoded JSON object"); a zero-length payload is a 400 naming the smallest valid one, `{}`.
 */
export function requiredObject(payload: unknown, allowed: readonly string[], what: string): Record<string, unknown> {
  if (payload === undefined)
    throw invalidPayload(`The ${what} payload must be a JSON object (at least {}); got nothing.`);
  return optionalObject(payload, allowed, what);
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** The outcome of one KP1 request, whatever the transport. */
export interface Kp1Reply {
  ok: boolean;
  statusCode: number;
  /** Success: the extension's payload (undefined: zero-length). Error: `{ statusCode, reasonPhrase }`. */
  payload: unknown;
  requestId?: number;
  /** The endpoint the token resolved to, also when the request failed afterwards: the token was used. */
  endpoint?: Endpoint;
  /** `<extension>/<resource>`: the key pushes for this resource are published under. */
  resourceKey?: string;
  observe?: boolean;
  /** An `offline` device fault swallowed the message: no reply, and over HTTP the connection is dropped. */
  dropped?: boolean;
}
