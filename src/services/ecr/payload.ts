import type { Request } from 'express';
import { badRequest, HttpError } from '../../server/errors.js';

/**
 * How a configuration payload is kept: a JSON value; text (any `text/*`) as a string; anything else as bytes,
 * base64 in the record (payloads are bounded by the body limit). The content type is kept as sent, without parameters.
 */
export type PayloadKind = 'json' | 'text' | 'binary';

export interface ConfigPayload {
  contentType: string;
  kind: PayloadKind;
  /** The JSON value, the text, or the bytes in base64. */
  value: unknown;
}

const JSON_TYPE = 'application/json';
/** Form encodings are what `curl -d` sends by default: a JSON payload mislabelled, not a configuration. */
const REFUSED = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);

const isJsonType = (type: string) => type === JSON_TYPE || type.endsWith('+json');

export const jsonPayload = (value: unknown): ConfigPayload => ({ contentType: JSON_TYPE, kind: 'json', value });

/** The payload of a `body: 'raw'` request, by its `Content-Type` (none means JSON). */
export function payloadOf(req: Request): ConfigPayload {
  const raw = Buffer.isBuffer(req.body) ? req.body : undefined;
  if (!raw || raw.length === 0)
    throw badRequest(
      'The request body is missing: send the configuration payload (any JSON, or text/plain, or ' +
        'application/octet-stream).',
    );
  const type = (req.headers['content-type'] ?? JSON_TYPE).split(';')[0].trim().toLowerCase() || JSON_TYPE;
  if (REFUSED.has(type)) {
    throw new HttpError(
      415,
      `Content-Type ${type} is not accepted for a configuration: send application/json, text/plain or ` +
        `application/octet-stream (curl: -H 'Content-Type: application/json').`,
    );
  }
  if (isJsonType(type)) {
    try {
      return { contentType: type, kind: 'json', value: JSON.parse(raw.toString('utf8')) };
    } catch (err) {
      throw badRequest(
        `The request body is not valid JSON (${(err as Error).message}); send text/plain or ` +
          `application/octet-stream to store it as is.`,
      );
    }
  }
  if (type.startsWith('text/')) return { contentType: type, kind: 'text', value: raw.toString('utf8') };
  return { contentType: type, kind: 'binary', value: raw.toString('base64') };
}

/** The record's and listing's `config`: the payload serialized to a string (binary content as base64). */
export function payloadText(payload: ConfigPayload): string {
  return payload.kind === 'json' ? JSON.stringify(payload.value) : (payload.value as string);
}

/**
 * What a device receives as `config` over KP1, and what a configuration schema judges: JSON as is, text and bytes as
 * strings.
 */
export function payloadValue(payload: ConfigPayload): unknown {
  return payload.value;
}

/** The stored bytes, for the raw GET. */
export function payloadBytes(payload: ConfigPayload): Buffer {
  if (payload.kind === 'binary') return Buffer.from(payload.value as string, 'base64');
  return Buffer.from(payloadText(payload), 'utf8');
}

/** The `Content-Type` header of the raw GET: the stored type, text and JSON in UTF-8. */
export function contentTypeHeader(payload: ConfigPayload): string {
  return payload.kind === 'binary' ? payload.contentType : `${payload.contentType}; charset=utf-8`;
}
