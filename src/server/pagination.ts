import type { Request } from 'express';
import type { QueryParam } from '../contract.js';
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

export interface NumberedPage<T> {
  items: T[];
  total: number;
  /** From 1. */
  page: number;
  pageSize: number;
}

/**
 * The other paginator: `page` (from 1, default 1) and `pageSize` (default given), as the identity and access manager
 * lists.
 */
export function paginateByPage<T>(req: Request, items: readonly T[], defaultPageSize: number): NumberedPage<T> {
  const page = queryInt(req, 'page', { min: 1 }) ?? 1;
  const pageSize = queryInt(req, 'pageSize', { min: 1 }) ?? defaultPageSize;
  const start = (page - 1) * pageSize;
  return { items: items.slice(start, start + pageSize), total: items.length, page, pageSize };
}

/** The query parameters `paginateByPage` reads. */
export function pageNumberParams(defaultPageSize: number): QueryParam[] {
  return [
    { name: 'page', description: 'from 1; default 1', schema: { type: 'integer', minimum: 1 } },
    { name: 'pageSize', description: `default ${defaultPageSize}`, schema: { type: 'integer', minimum: 1 } },
  ];
}
