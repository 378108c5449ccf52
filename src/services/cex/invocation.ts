import type { Request } from 'express';
import { badRequest, HttpError } from '../../server/errors.js';
import { queryInt } from '../../server/params.js';
import type { CommandLifetime } from './commands.js';

/** Spec 1 "Limits". */
export const DEFAULT_WAIT_SECONDS = 5;
export const DEFAULT_TTL_MS = 60_000;
export const DEFAULT_RETENTION_HOURS = 720;
const MAX_TTL_MS = 10 * 365 * 24 * 3_600_000;
const MAX_RETENTION_HOURS = 10 * 365 * 24;

export interface Invocation extends CommandLifetime {
  waitSeconds: number;
}

/**
 * The query of `POST .../commands/{commandType}` in either revision: `awaitTimeout` + `commandTtl` (first),
 * `waitTimeout` + `commandRetentionTtl` (second). Without any of them, `--compat cex=1` picks the first
 * revision's defaults (a 60 s TTL); otherwise the second's (pending until the retention ends).
 */
export function invocationOf(req: Request): Invocation {
  const max = req.ctx.config.asyncRequestTimeout;
  const wait = (name: string) => {
    const value = queryInt(req, name);
    if (value !== undefined && value > max) {
      throw badRequest(
        `Query parameter ${name} must not exceed the asynchronous request timeout of ${max} seconds (flag ` +
          `--async-timeout); got ${value}.`,
      );
    }
    return value;
  };
  const awaitTimeout = wait('awaitTimeout');
  const waitTimeout = wait('waitTimeout');
  if (awaitTimeout !== undefined && waitTimeout !== undefined && awaitTimeout !== waitTimeout) {
    throw badRequest(
      'Give the wait once: awaitTimeout (first revision) or waitTimeout (second revision), not both with ' +
        'different values.',
    );
  }
  const commandTtl = queryInt(req, 'commandTtl', { min: 1, max: MAX_TTL_MS });
  const commandRetentionTtl = queryInt(req, 'commandRetentionTtl', { min: 1, max: MAX_RETENTION_HOURS });
  const secondRevision = waitTimeout !== undefined || commandRetentionTtl !== undefined;
  const firstRevision =
    awaitTimeout !== undefined || commandTtl !== undefined || (!secondRevision && req.ctx.config.compat.cex === '1');
  return {
    waitSeconds: awaitTimeout ?? waitTimeout ?? DEFAULT_WAIT_SECONDS,
    ttlMs: commandTtl ?? (firstRevision ? DEFAULT_TTL_MS : undefined),
    retentionHours: commandRetentionTtl ?? DEFAULT_RETENTION_HOURS,
  };
}

/** `application/json`, `application/<anything>+json`, or no `Content-Type` at all: a JSON payload. */
const isJsonType = (type: string) =>
  type === '' || type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type);

/**
 * The request payload: a string, unvalidated, under `text/plain`; JSON (validated) under a JSON type or none. Any
 * other type (`application/xml`, the form type `curl -d` sends) is 415: spec 2 takes JSON or text only.
 */
export function commandPayloadOf(req: Request): unknown {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'text/plain') return raw.toString('utf8');
  if (!isJsonType(type)) {
    throw new HttpError(
      415,
      `A command payload is application/json or text/plain; got ${type}. With curl, add -H 'Content-Type: ` +
        `application/json'.`,
    );
  }
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(
      `The request body is not valid JSON (${(err as Error).message}); send text/plain to store a payload ` +
        `without validation.`,
    );
  }
}
