import type { Request, Response } from 'express';
import { HttpError } from './errors.js';

export interface Validators {
  /** A revision counter kept with the data; never a hash of the body. */
  revision?: number | string;
  /** The stored update time. */
  lastModified?: string | Date;
}

export const etagOf = (revision: number | string) => `"${revision}"`;

function seconds(date: string | Date): number {
  return Math.floor(new Date(date).getTime() / 1000);
}

function listIncludes(header: string, etag: string): boolean {
  return header.split(',').some((part) => {
    const candidate = part.trim().replace(/^W\//, '');
    return candidate === '*' || candidate === etag;
  });
}

/**
 * `Last-Modified` of a stored ISO date. Parsing and formatting a date was a few per cent of a GET of one record
 * (`npm run bench`, figure 2a); the same stored dates are read again and again, so their HTTP form is kept.
 */
const httpDates = new Map<string, string>();
function httpDate(date: string | Date): string {
  if (typeof date !== 'string') return date.toUTCString();
  let formatted = httpDates.get(date);
  if (formatted === undefined) {
    if (httpDates.size >= 10_000) httpDates.clear();
    httpDates.set(date, (formatted = new Date(date).toUTCString()));
  }
  return formatted;
}

/** Sets `ETag` / `Last-Modified`; answers 304 (no body) and returns true when the client's copy is current. */
export function notModified(req: Request, res: Response, validators: Validators): boolean {
  const etag = validators.revision !== undefined ? etagOf(validators.revision) : undefined;
  if (etag) res.setHeader('ETag', etag);
  if (validators.lastModified) res.setHeader('Last-Modified', httpDate(validators.lastModified));
  const ifNoneMatch = req.headers['if-none-match'];
  const ifModifiedSince = req.headers['if-modified-since'];
  let fresh = false;
  if (ifNoneMatch !== undefined) {
    fresh = etag !== undefined && listIncludes(ifNoneMatch, etag);
  } else if (ifModifiedSince !== undefined && validators.lastModified) {
    const since = Date.parse(ifModifiedSince);
    fresh = !Number.isNaN(since) && seconds(validators.lastModified) <= Math.floor(since / 1000);
  }
  if (fresh) res.status(304).end();
  return fresh;
}

/**
 * `If-Match` / `If-Unmodified-Since` before a write: throws 412 so that nothing is performed.
 * With no current resource, `If-Match` never matches (RFC 9110).
 */
export function checkPreconditions(req: Request, current: Validators | undefined): void {
  const ifMatch = req.headers['if-match'];
  const ifUnmodifiedSince = req.headers['if-unmodified-since'];
  if (ifMatch !== undefined) {
    const etag = current?.revision !== undefined ? etagOf(current.revision) : undefined;
    const matches =
      etag !== undefined &&
      ifMatch.split(',').some((p) => p.trim() === '*' || p.trim() === etag || p.trim() === String(current?.revision));
    if (!matches)
      throw new HttpError(
        412,
        `If-Match ${ifMatch} does not match the current version${etag ? ` ${etag}` : ' (there is none)'}; ` +
          `nothing was changed.`,
      );
  } else if (ifUnmodifiedSince !== undefined && current?.lastModified) {
    const since = Date.parse(ifUnmodifiedSince);
    if (Number.isNaN(since) || seconds(current.lastModified) > Math.floor(since / 1000)) {
      throw new HttpError(412, `The resource was modified after ${ifUnmodifiedSince}; nothing was changed.`);
    }
  }
}
