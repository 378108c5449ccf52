import type { Request, Response } from 'express';
import type { EmuContext } from '../context.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One operation of a service, exactly as the spec lists it: the route table is the single source for
 * what is mounted, what `call --list` prints, and what the operations test checks.
 */
export interface Route {
  method: HttpMethod;
  /** Path under `/{prefix}/api/v1`, written as in the spec: `/endpoints/{endpointId}`. */
  path: string;
  /** The scope the spec lists; `a | b` accepts either; null where the spec lists none. */
  scope: string | null;
  summary: string;
  /** How the request body is read; default `json` for POST/PUT/PATCH and `none` otherwise. */
  body?: 'json' | 'raw' | 'none';
  /** The answer to a missing scope: 403, or 404 where the spec says "not found or denied". */
  deniedStatus?: 403 | 404;
  /** Routes that authenticate differently (the binary-data upload token) handle it themselves. */
  customAuth?: boolean;
  handler: (req: Request, res: Response) => unknown;
}

/** A JSON Schema (ajv, draft 2020-12 subset) for records or fixture sections. */
export type JsonSchema = Record<string, unknown>;

export interface FixtureSection {
  /** The top-level key in the fixture file. */
  key: string;
  /** Schema of one item of the section's array. */
  item: JsonSchema;
  /** The item's name in validation errors (`endpoints[3] (meter-001)`). */
  label?: (item: Record<string, unknown>) => string | undefined;
  /** Turns the validated items into store records; runs in the order of the service list. */
  seed: (ctx: EmuContext, items: Record<string, unknown>[], fixture: Record<string, unknown>) => Promise<void>;
}

/** A platform service: one folder under src/services, one entry in src/services/index.ts. */
export interface ServiceDescriptor {
  /** Short name, also the URL prefix: `/epr/api/v1`. */
  prefix: string;
  /** The spec's plain name. */
  title: string;
  serviceGroup: 'device' | 'admin';
  routes: Route[];
  /** Record schemas of the collections the service owns, checked on `fixtures import`. */
  collections?: Record<string, JsonSchema>;
  fixtures?: FixtureSection[];
  /** Runs once the store is open: define indexes, start timers. */
  setup?: (ctx: EmuContext) => void | Promise<void>;
  /** Runs on stop: clear timers, release waiters. */
  teardown?: (ctx: EmuContext) => void | Promise<void>;
}

/** A date-time as the emulator stores them (`toISOString()`); other ISO 8601 offsets are read too. */
export const DATE_TIME: JsonSchema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$' };

/**
 * Schema of a stored record owned by a tenant: an object with its `tenantId` and the `required` fields,
 * each a string unless `properties` gives its schema (`properties` may also describe optional fields).
 */
export function tenantRecord(required: string[], properties: Record<string, JsonSchema> = {}): JsonSchema {
  const fields = ['tenantId', ...required];
  return {
    type: 'object',
    required: fields,
    properties: { ...Object.fromEntries(fields.map((f) => [f, { type: 'string' }])), ...properties },
  };
}
