import type { Request, Response } from 'express';
import { gzip } from 'node:zlib';

/** JSON answers shorter than this go out as they are: compressing them would cost more than it saves. */
export const COMPRESS_THRESHOLD = 2048;

const acceptsGzip = (req: Request) => /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');

/**
 * Compresses the JSON answers (`res.json`) of clients that accept gzip, when the JSON is at least
 * `COMPRESS_THRESHOLD` characters long; called once per request before routing. Small answers (most of the REST hot
 * path) are serialised once and sent as before; a client that does not send `Accept-Encoding: gzip` is not touched.
 * Compression runs on the thread pool (`zlib.gzip`), not on the event loop.
 */
export function compressLargeJson(threshold = COMPRESS_THRESHOLD): (req: Request, res: Response) => void {
  return (req, res) => {
    if (!acceptsGzip(req)) return;
    const json = res.json;
    res.json = function (this: Response, body: unknown) {
      const text = JSON.stringify(body);
      if (text === undefined) return json.call(this, body);
      // As express's own res.json does, with the text serialised once.
      if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
      if (text.length < threshold) return this.send(text);
      this.vary('Accept-Encoding');
      gzip(text, { level: 6 }, (err, compressed) => {
        if (this.headersSent || this.destroyed) return;
        if (err) return void this.send(text);
        this.set('Content-Encoding', 'gzip');
        this.send(compressed);
      });
      return this;
    } as Response['json'];
  };
}
