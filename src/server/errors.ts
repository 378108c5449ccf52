import type { NextFunction, Request, Response } from 'express';

/** The one error type of every service: an HTTP status and a sentence a person can act on. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  message: string;
}

/** The statuses a route with `bareErrors` answers without a body, and the header that carries their message instead. */
const BARE_STATUSES = new Set([400, 401, 403]);
export const BARE_MESSAGE_HEADER = 'X-Platform-Emu-Message';

/** Turns anything thrown into `{ "message": ... }`: never an HTML page, never a stack trace. */
export function errorHandler(log: (message: string) => void) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const parserError = err as BodyParserError;
    let status = 500;
    let message: string;
    if (err instanceof HttpError) {
      status = err.status;
      message = err.message;
      res.set(err.headers);
    } else if (parserError.type === 'entity.parse.failed') {
      status = 400;
      message = `The request body is not valid JSON: ${parserError.message}.`;
    } else if (parserError.type === 'entity.too.large') {
      status = 413;
      message = `The request body is larger than the limit of ${parserError.limit} bytes (flag --body-limit).`;
    } else if (parserError.type === 'encoding.unsupported' || parserError.type === 'charset.unsupported') {
      status = 415;
      message = `Unsupported request body encoding: ${parserError.message}.`;
    } else if (
      typeof parserError.status === 'number' &&
      parserError.status >= 400 &&
      parserError.status < 600 &&
      parserError.status !== 500
    ) {
      // Errors that carry their own status: body parsers' 4xx, the store's 400 (a refused value) and 503 (a failed
      // write).
      status = parserError.status;
      message = parserError.message;
    } else {
      message =
        `Internal error while handling ${req.method} ${req.originalUrl}: ` +
        `${(err as Error)?.message ?? String(err)}`;
      log(message + (err instanceof Error && err.stack ? `\n${err.stack}` : ''));
    }
    // Validators set before the failure describe a resource this answer does not carry (a 400 never has an ETag).
    res.removeHeader('ETag');
    res.removeHeader('Last-Modified');
    if (res.locals.bareErrors === true && BARE_STATUSES.has(status)) {
      // No body, as the spec says; the sentence still reaches whoever looks at the headers.
      res
        .status(status)
        .set(BARE_MESSAGE_HEADER, message.replace(/[^\x20-\x7e]/g, '?'))
        .end();
    } else {
      res.status(status).json({ message });
    }
  };
}
