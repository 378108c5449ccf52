import type { Response } from 'express';

type Json = Response['json'];

/**
 * express's `res.json` for the answers a service gives most: a JSON body (not 204, 205 or 304), no `Content-Type`
 * chosen by the handler, not HEAD, and no conditional request headers (with them express may turn the answer into a
 * 304). Then the same bytes as express's (`Content-Type: application/json; charset=utf-8`, `Content-Length`, the
 * text) without its steps for every other case (the content type looked up and its charset parsed and set twice, the
 * ETag and freshness checks of an app that has neither). Everything else goes to express's own. The app sets no
 * `json replacer`, `json spaces` or `json escape`, so the text is `JSON.stringify`'s in both.
 */
export function leanJson(expressJson: Json): Json {
  return function json(this: Response, body: unknown) {
    const { req } = this;
    const status = this.statusCode;
    if (
      status === 204 ||
      status === 205 ||
      status === 304 ||
      req.method === 'HEAD' ||
      req.headers['if-none-match'] !== undefined ||
      req.headers['if-modified-since'] !== undefined ||
      this.hasHeader('content-type') ||
      this.hasHeader('transfer-encoding')
    )
      return expressJson.call(this, body);
    const text = JSON.stringify(body) as string | undefined;
    if (text === undefined) return expressJson.call(this, body);
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', String(Buffer.byteLength(text)));
    this.end(text, 'utf8');
    return this;
  } as Json;
}
