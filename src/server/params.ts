import type { Request } from 'express';
import { badRequest } from './errors.js';

/** Query parameter readers: each names the parameter in its 400, so the caller knows what to fix. */

export const PARSED_QUERY = Symbol('parsed query');

/** What a URL without a query string reads as: nothing to parse (the common case of a GET of one record). */
const NO_QUERY: Request['query'] = Object.freeze(Object.create(null));

/** Express 5 parses the query string again on every read of `req.query`; the readers parse it once per request. */
function queryOf(req: Request): Request['query'] {
  if (!req.url.includes('?')) return NO_QUERY;
  const holder = req as Request & { [PARSED_QUERY]?: Request['query'] };
  return (holder[PARSED_QUERY] ??= req.query);
}

export function queryString(req: Request, name: string): string | undefined {
  const value = queryOf(req)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`Query parameter ${name} must be given once, as a string.`);
  return value;
}

export function requiredQuery(req: Request, name: string): string {
  const value = queryString(req, name);
  if (value === undefined || value === '') throw badRequest(`Query parameter ${name} is required.`);
  return value;
}

/** Every value of a parameter that may repeat and may be comma-separated (`?id=a&id=b,c`). */
export function queryList(req: Request, name: string): string[] | undefined {
  const value = queryOf(req)[name];
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => {
    if (typeof v !== 'string') throw badRequest(`Query parameter ${name} must be a string or a comma-separated list.`);
    return v.split(',');
  });
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

export function queryInt(req: Request, name: string, options: { min?: number; max?: number } = {}): number | undefined {
  const raw = queryString(req, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = options;
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw badRequest(`Query parameter ${name} must be a whole number from ${min} to ${max}; got "${raw}".`);
  }
  return value;
}

export function queryEnum<T extends string>(req: Request, name: string, allowed: readonly T[]): T | undefined {
  const raw = queryString(req, name);
  if (raw === undefined) return undefined;
  if (!allowed.includes(raw as T))
    throw badRequest(`Query parameter ${name} must be one of ${allowed.join(', ')}; got "${raw}".`);
  return raw as T;
}

export function queryDate(req: Request, name: string): Date | undefined {
  const raw = queryString(req, name);
  if (raw === undefined) return undefined;
  const date = new Date(raw);
  if (Number.isNaN(date.getTime()))
    throw badRequest(`Query parameter ${name} must be an ISO 8601 datetime; got "${raw}".`);
  return date;
}

/** A path parameter that must be a whole number (ids of recipients, templates, integrations). */
export function pathInt(req: Request, name: string): number {
  const raw = String(req.params[name]);
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value))
    throw badRequest(`Path parameter ${name} must be a whole number; got "${raw}".`);
  return value;
}

export function pathParam(req: Request, name: string): string {
  return String(req.params[name]);
}
