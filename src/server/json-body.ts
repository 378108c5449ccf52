import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A body-parser style error: the error handler answers it by `type` and `status` (src/server/errors.ts). */
function parserError(message: string, status: number, type: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, type, expose: true });
}

const DECIMAL = /^\d+$/;

/**
 * `express.json({ limit, strict: false, type: () => true })` for the body almost every client sends: a
 * `Content-Length` within the limit, no `Transfer-Encoding`, no `Content-Encoding` and a `Content-Type` without
 * parameters (so UTF-8). That body is read into its chunks and parsed once, with body-parser's outcome: an empty
 * body is `{}`, a leading byte order mark is dropped, malformed JSON is `entity.parse.failed` with `JSON.parse`'s
 * message, an aborted request `request.aborted`. Every other request (chunked, compressed, a charset named, a length
 * past the limit) goes to `fallback`, body-parser itself. body-parser's per-request work (debug calls, content-type
 * and charset parsing, raw-body's decoder and listeners) was 8.5% of a durable POST's main thread (`npm run bench`
 * figure 3a, docs/performance.md).
 */
export function jsonBody(limit: number, fallback: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const { headers } = req;
    const length = headers['content-length'];
    if (headers['transfer-encoding'] === undefined && length === undefined) {
      if (!('body' in (req as object))) req.body = undefined;
      return next();
    }
    if (
      headers['transfer-encoding'] !== undefined ||
      headers['content-encoding'] !== undefined ||
      headers['content-type']?.includes(';') ||
      !DECIMAL.test(length!) ||
      Number(length) > limit ||
      req.readableEnded
    )
      return fallback(req, res, next) as void;
    readJson(req, Number(length), next);
  };
}

function readJson(req: Request, length: number, next: NextFunction): void {
  const chunks: Buffer[] = [];
  const done = (err?: Error) => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onAborted);
    req.off('close', onAborted);
    if (err) return next(err);
    const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length)).toString('utf8');
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    if (body.length === 0) req.body = {};
    else {
      try {
        req.body = JSON.parse(body);
      } catch (parseErr) {
        return next(parserError((parseErr as Error).message, 400, 'entity.parse.failed'));
      }
    }
    next();
  };
  const onData = (chunk: Buffer) => chunks.push(chunk);
  const onEnd = () => done();
  const onAborted = () => done(parserError('request aborted', 400, 'request.aborted'));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onAborted);
  req.on('close', onAborted);
}
