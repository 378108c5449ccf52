import type { Request } from 'express';
import type { QueryParam } from './contract.js';
import { queryInt } from './params.js';

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

/**
 * The one offset/limit paginator. `limit=0` returns everything (spec 1, Limits); each service passes its own default.
 */
export function paginate<T>(req: Request, items: readonly T[], defaultLimit: number): Page<T> {
  const offset = queryInt(req, 'offset') ?? 0;
  const limit = queryInt(req, 'limit') ?? defaultLimit;
  const end = limit === 0 ? items.length : offset + limit;
  return { items: items.slice(offset, end), total: items.length, offset, limit };
}

/** The query parameters `paginate` reads, for a route's entry in the table. */
export function pageParams(defaultLimit: number): QueryParam[] {
  return [
    { name: 'offset', description: 'default 0', schema: { type: 'integer', minimum: 0 } },
    { name: 'limit', description: `default ${defaultLimit}, 0 = all`, schema: { type: 'integer', minimum: 0 } },
  ];
}
