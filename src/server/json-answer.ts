import type { Response } from 'express';

type Json = Response['json'];

/** A JSON answer's text, made ahead of the moment it is sent (while a durable write is under way). */
export interface PreparedJson {
  body: unknown;
  text: string | undefined;
}

/** What `res.json(body)` would write, made now; `sendPreparedJson` sends it later. */
export const prepareJson = (body: unknown): PreparedJson => ({ body, text: JSON.stringify(body) });

/**
 * Whether express's `res.json` has no more to do than write the text: a JSON body (not 204, 205 or 304), no
 * `Content-Type` chosen by the handler, not HEAD, and no conditional request headers (with them express may turn the
 * answer into a 304).
 */
function plainJsonAnswer(res: Response): boolean {
  const { req } = res;
  const status = res.statusCode;
  return !(
    status === 204 ||
    status === 205 ||
    status === 304 ||
    req.method === 'HEAD' ||
    req.headers['if-none-match'] !== undefined ||
    req.headers['if-modified-since'] !== undefined ||
    res.hasHeader('content-type') ||
    res.hasHeader('transfer-encoding')
  );
}

function endJson(res: Response, text: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.end(text, 'utf8');
}

/** Sends a prepared answer: the same bytes as `res.json(prepared.body)` at this moment. */
export function sendPreparedJson(res: Response, prepared: PreparedJson): void {
  if (prepared.text === undefined || !plainJsonAnswer(res)) res.json(prepared.body);
  else endJson(res, prepared.text);
}

/**
 * express's `res.json` for the answers a service gives most (`plainJsonAnswer`): then the same bytes as express's
 * (`Content-Type: application/json; charset=utf-8`, `Content-Length`, the text) without its steps for every other
 * case (the content type looked up and its charset parsed and set twice, the ETag and freshness checks of an app that
 * has neither). Everything else goes to express's own. The app sets no `json replacer`, `json spaces` or
 * `json escape`, so the text is `JSON.stringify`'s in both.
 */
export function leanJson(expressJson: Json): Json {
  return function json(this: Response, body: unknown) {
    if (!plainJsonAnswer(this)) return expressJson.call(this, body);
    const text = JSON.stringify(body) as string | undefined;
    if (text === undefined) return expressJson.call(this, body);
    endJson(this, text);
    return this;
  } as Json;
}
