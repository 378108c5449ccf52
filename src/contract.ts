import type { Request, Response, Router } from 'express';
import type { FromSchema as FromSchemaOf, JSONSchema } from 'json-schema-to-ts';
import type { SigningKey } from './auth/keys.js';
import type { EventEmitter } from 'node:events';
import type { EmulatorConfig } from './config.js';
import type { Store } from './store/index.js';

/**
 * The contract between the floors: what a domain function may reach (`EmuContext`), what a service declares
 * and what the server mounts (`ServiceDescriptor`, `Route`). The route table is the single source for what is
 * mounted, validated, listed by `call --list`, described by `/_emu/openapi.json`, and checked by the operations
 * test. It imports only from the floors below it (store, config, keys).
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A JSON Schema (ajv, draft-07 keywords plus `format`) for a request body, a query parameter or a record. */
export type JsonSchema = Record<string, unknown>;

/**
 * The TypeScript type of what a JSON Schema written `as const` accepts (json-schema-to-ts, type-level only): stored
 * records and request bodies take their types from their schemas (docs/adding-a-service.md, "Types from schemas").
 * A field with a `default` is required in the type, as the record check fills defaults in; body schemas have none.
 */
export type FromSchema<S extends JSONSchema> = FromSchemaOf<S>;

/** The request a handler receives once the server checked its body against the route's `bodySchema`. */
export type BodyRequest<Body> = Request<Request['params'], any, Body>;

/** A JSON Schema that carries, for the compiler only, the type of what it accepts (`typedSchema`); never set. */
export type BodySchema<Body> = JsonSchema & { readonly '~body'?: Body };

/**
 * A request body's schema with its type attached, for `route`: `typedSchema({ type: 'object', ... })`. The object is
 * the schema itself (no runtime change); `FromSchema<typeof schema>` names its type.
 */
export function typedSchema<const S extends JSONSchema & object>(schema: S): S & BodySchema<FromSchema<S>> {
  return schema as S & BodySchema<FromSchema<S>>;
}

/** A query parameter, for the OpenAPI document and `call --list`; handlers read it with `src/server/params.ts`. */
export interface QueryParam {
  name: string;
  required?: boolean;
  description?: string;
  /** Default `{ type: 'string' }`. */
  schema?: JsonSchema;
  /** A parameter the spec does not show on this operation: an emulator addition (docs say why). */
  addition?: true;
}

/** One operation of a service, exactly as the spec lists it; `Body` is what its `bodySchema` accepts (see `route`). */
export interface Route<Body = any> {
  method: HttpMethod;
  /** Path under `/{prefix}/api/v1`, written as in the spec: `/endpoints/{endpointId}`. */
  path: string;
  /** The scope the spec lists; `a | b` accepts either; null where the spec lists none. */
  scope: string | null;
  summary: string;
  /**
   * How the request body is read; default `json` for POST/PUT/PATCH and `none` otherwise. `form`: an HTML form
   * (`application/x-www-form-urlencoded`) or, with `Content-Type: application/json`, JSON (the OAuth endpoints).
   */
  body?: 'json' | 'raw' | 'form' | 'none';
  /** The body size limit where it is not `--body-limit` (bytes or `512mb`): a whole state document, an OAuth form. */
  bodyLimit?: number | string;
  /** JSON Schema of a `json` body: the server checks it before the handler runs. */
  bodySchema?: JsonSchema;
  /** The status for a body that fails `bodySchema`, where the spec says other than 400. */
  invalidBodyStatus?: 400 | 422;
  query?: QueryParam[];
  /** The status of a successful answer (for the OpenAPI document); default 200. */
  successStatus?: number;
  /** The answer to a missing scope: 403, or 404 where the spec says "not found or denied". */
  deniedStatus?: 403 | 404;
  /** Routes that authenticate differently (the binary-data upload token) handle it themselves. */
  customAuth?: boolean;
  /** Answers 400, 401 and 403 without a body, where the spec says so (identity and access manager). */
  bareErrors?: boolean;
  /**
   * Top-level request body fields that are write-only secrets (`lnsApiKeyId`): whatever records requests (the
   * journal) must leave them out. The service itself never answers them.
   */
  secretBodyFields?: string[];
  /** Not in the spec (`shared/spec/operations.json`): an operation the emulator adds; the OpenAPI document says so. */
  addition?: true;
  /**
   * The envelope of a list answer, where the operation pages. With `offset` and `limit`: `content` is
   * `{ content, totalElements }`, `results` is `{ count, results }`, `array` a bare array of the page. With `page` and
   * `pageSize`: `data` is `{ data, count, page, pageSize }`.
   */
  paging?: 'content' | 'results' | 'data' | 'array';
  /** The answer carries `Location`: the new resource's address. */
  location?: true;
  /** The answer carries `ETag` (and `Last-Modified` where known), and `If-None-Match` can answer 304. */
  etag?: true;
  /** Deprecated by the spec (spec 1, Versioning): the OpenAPI document marks it `deprecated: true`. */
  deprecated?: true;
  handler: (req: BodyRequest<Body>, res: Response) => unknown;
}

/**
 * A route whose handler's `req.body` has the type its `bodySchema` accepts (a `typedSchema`): an inline handler's
 * `req.body` is typed, and a named handler that declares another body type is an error.
 */
export function route<Body>(entry: Route<Body> & { bodySchema: BodySchema<Body> }): Route<Body> {
  return entry;
}

export interface FixtureSection {
  /** The top-level key in the fixture file. */
  key: string;
  /** Schema of one item of the section's array. */
  item: JsonSchema;
  /** The item's name in validation errors (`endpoints[3] (meter-001)`). */
  label?: (item: Record<string, unknown>) => string | undefined;
  /**
   * Turns the validated items into store records; runs after the sections of the services named in `seedsAfter`.
   * `schemasChecked`: the items are the package's own fixtures, which the tests check against every schema, so the
   * section may leave out schema checks of its own (never its other checks).
   */
  seed: (
    ctx: EmuContext,
    items: Record<string, unknown>[],
    fixture: Record<string, unknown>,
    options: { schemasChecked: boolean },
  ) => Promise<void>;
}

/** A platform service: one folder under src/services, one entry in src/services/index.ts. */
export interface ServiceDescriptor {
  /** Short name, also the URL prefix: `/epr/api/v1`. */
  prefix: string;
  /** The spec's plain name. */
  title: string;
  serviceGroup: 'device' | 'admin';
  routes: Route[];
  /**
   * Record schemas of the collections the service owns, checked on import. Declaring a collection here is what lets
   * its handle (`collection<T>(name)` in `src/store/collection.ts`) write: a write to a collection no service declares
   * is refused (docs/adding-a-service.md, "Collections").
   */
  collections?: Record<string, JsonSchema>;
  /** Names of the append-only series collections the service owns (`seriesCollection(name)`), accepted on import. */
  series?: string[];
  fixtures?: FixtureSection[];
  /**
   * What the record schemas cannot say about an imported state (rules across records, such as unique tokens),
   * checked before the state replaces anything: the problem naming the record, or undefined.
   */
  checkState?: (collections: Record<string, Record<string, Record<string, unknown>>>) => string | undefined;
  /** Prefixes of the services whose fixtures must be seeded first (their records are referenced). */
  seedsAfter?: string[];
  /**
   * Routes (`GET /endpoints/{endpointId}`) that this service answers on the bare `/api/v1` where another service
   * has the same method and path. Two services sharing a bare path without one owning it is an error at start.
   */
  ownsBarePath?: string[];
  /**
   * The service's part of the emulator's control plane (captured e-mail, simulated network servers): a router
   * mounted at `/_emu`, guarded like the rest of it. Never the platform's own operations.
   */
  controlPlane?: (ctx: EmuContext) => Router;
  /**
   * The schema of the service's part of an application version's configuration (application configuration service,
   * under the service's name), listed by `GET /service-instances` as `appVersionConfigurationSchema`.
   */
  appVersionConfigurationSchema?: JsonSchema;
  /**
   * Secret fields per collection (`{ tenants: ['client_backend_secret'] }`): `GET /_emu/state` shows them as
   * `<redacted>` unless asked with `includeSecrets=true`, and an import that has `<redacted>` keeps the stored value.
   * Never part of an answer of the service.
   */
  secretFields?: Record<string, string[]>;
  /**
   * Collections whose records are secrets themselves (keyed by one, like upload tokens): left out of `GET /_emu/state`
   * and every export unless asked with `includeSecrets=true`. An import without them has none.
   */
  secretCollections?: string[];
  /**
   * Secrets that must stay equal to another record's (collection → field → where the twin is): an import that has to
   * generate one of them gives both the same value.
   */
  secretTwins?: Record<
    string,
    Record<
      string,
      (id: string, record: Record<string, unknown>) => { collection: string; id: string; field: string } | undefined
    >
  >;
  /** Runs once the store is open: define indexes, start timers. */
  setup?: (ctx: EmuContext) => void | Promise<void>;
  /** Runs on stop: clear timers, release waiters. */
  teardown?: (ctx: EmuContext) => void | Promise<void>;
  /**
   * Where two revisions of the service answer differently: the revisions `--compat <prefix>=<revision>` accepts
   * (anything else is refused at start), and the one answered without it.
   */
  compat?: { revisions: string[]; default: string };
}

/**
 * An id that stands in URL paths and KP1 topics (endpoint ids, application version names, tenant ids, endpoint filter
 * ids): URL-unreserved characters (RFC 3986), not `.` or `..` alone (they would be path segments of their own).
 */
export const ID_PATTERN = '^(?!\\.{1,2}$)[a-zA-Z0-9._~-]+$';

/** A date-time as the emulator stores them (`toISOString()`); other ISO 8601 offsets are read too. */
export const DATE_TIME = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$',
} as const;

/**
 * Schema of a stored record owned by a tenant: an object with its `tenantId` and the `required` fields,
 * each a string unless `properties` gives its schema (`properties` may also describe optional fields).
 */
export function tenantRecord<const R extends readonly string[], const P extends Record<string, JSONSchema> = {}>(
  required: R,
  properties: P = {} as P,
): TenantRecordSchema<R, P> {
  const fields = ['tenantId', ...required];
  return {
    type: 'object',
    required: fields,
    properties: { ...Object.fromEntries(fields.map((f) => [f, { type: 'string' }])), ...properties },
  } as unknown as TenantRecordSchema<R, P>;
}

/** What `tenantRecord` returns, spelled out for `FromSchema`. */
export type TenantRecordSchema<R extends readonly string[], P> = {
  type: 'object';
  required: ['tenantId', ...R];
  properties: { [K in 'tenantId' | R[number] | keyof P]: K extends keyof P ? P[K] : { type: 'string' } };
};

/** Every collection and series the services declare: the only ones their store lets them write. */
export function declaredCollections(services: readonly ServiceDescriptor[]): string[] {
  return services.flatMap((s) => [...Object.keys(s.collections ?? {}), ...(s.series ?? [])]);
}

export const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** The endpoint a push goes to: the record the service already holds (no second lookup by token). */
export interface PushTarget {
  tenantId: string;
  endpointId: string;
  token: string;
  appVersion: { name: string };
}

/** What the gateway offers the services: pushing a message to a connected device. */
export interface DevicePush {
  push(endpoint: PushTarget, extension: string, resource: string, payload: unknown): void;
}

/** The realms of the tenants, as the server's token check needs them; the tenant manager provides it. */
export interface RealmDirectory {
  /** The tenant whose realm has this name. */
  tenantIdOfRealm(realm: string): string | undefined;
}

/** The emulator's time: every date it writes and every deadline it keeps is read from here. */
export interface Clock {
  now(): Date;
  /** `now()` in epoch milliseconds, made into no object: for what is asked on every device message. */
  nowMs(): number;
  /** `now()` as ISO 8601 UTC, the form every stored date takes. */
  nowIso(): string;
}

/**
 * Everything a domain function may use, one per running emulator. Services pass it along;
 * nothing lives in module globals, so several emulators can run in one process (tests do).
 */
export interface EmuContext {
  store: Store;
  config: EmulatorConfig;
  services: readonly ServiceDescriptor[];
  /** The signing key; an in-memory emulator makes it when first read. */
  readonly keys: SigningKey;
  realms: RealmDirectory;
  clock: Clock;
  /** In-process notifications between services and the gateway (a command result wakes its REST wait). */
  events: EventEmitter;
  devices: DevicePush;
  /** Runtime state of a service that is not part of the stored state (waiters, timers). */
  runtime: Map<string, unknown>;
  log: (message: string) => void;
  /** The tenant requests act in when auth is off. */
  defaultTenantId(): string;
}
