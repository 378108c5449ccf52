import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';

type Handle = (req: Request, res: Response, callback?: NextFunction) => void;

/** What a request entered directly hands to express's Router when the first middleware passes it on. */
const HANDED_ON = Symbol('handed on');

interface HandedOn {
  [HANDED_ON]?: { err: unknown };
}

/** The first path level of a URL in origin form (`/epr/api/v1/x?y` gives `epr`); undefined for any other form. */
export function firstPathLevel(url: string): string | undefined {
  if (url.charCodeAt(0) !== 0x2f) return undefined;
  let end = 1;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === 0x2f || c === 0x3f) break;
    end++;
  }
  return url.slice(1, end);
}

/** The fields express's Router adds to a request, and the app's own, as placeholders that read as absent. */
function addExpressFields(req: Request, addFields: (req: Request) => void): void {
  const fields = req as unknown as Record<string, unknown>;
  fields.originalUrl = undefined;
  fields.baseUrl = undefined;
  fields.params = undefined;
  fields.next = undefined;
  addFields(req);
}

/**
 * Installs `first` as the app's first middleware, and enters it directly, without express's Router, for the requests
 * whose first path level `direct` accepts (the services' prefixes: `npm run bench` figures 2a and 2d; the Router's
 * per-request work, its `next` closure, layer walk and URL parsing, and `app.handle`'s final handler, were a tenth of a
 * GET of one record). Such a request gets what `app.handle` and the Router give the first middleware (`req.res`,
 * `res.req`, the app's request and response prototypes, `res.locals`, `req.originalUrl`, `req.baseUrl` '', `req.params`
 * {}, `req.next`). When `first` passes it on (`next()`, an error, or a throw), it goes through `app.handle` as every
 * other request does, where the Router skips `first` and passes the same thing on: the layers after it, the 404 and the
 * error handler answer as they always did. The app must not send `X-Powered-By` (this entry never does).
 * `addFields` adds, with placeholder values, the fields the app's own steps set on a request later (see
 * src/server/request-fields.ts): added before the prototypes change, they cost no garbage. Requests that go through
 * express's Router get them too, with the Router's own fields as placeholders.
 */
export function enterFirstDirectly(
  app: Express,
  direct: (level: string) => boolean,
  first: RequestHandler,
  addFields: (req: Request) => void,
): void {
  if (app.enabled('x-powered-by')) throw new Error('enterFirstDirectly: disable x-powered-by first.');
  app.use((req: Request & HandedOn, res, next) => {
    const handed = req[HANDED_ON];
    if (handed === undefined) return first(req, res, next);
    req[HANDED_ON] = undefined;
    next(handed.err);
  });
  const expressHandle = (app as unknown as { handle: Handle }).handle;
  const handOn = (req: Request & HandedOn, res: Response, err: unknown) => {
    req[HANDED_ON] = { err };
    expressHandle.call(app, req, res);
  };
  (app as unknown as { handle: Handle }).handle = function handle(req, res, callback) {
    const level = callback === undefined ? firstPathLevel(req.url) : undefined;
    if (level === undefined || !direct(level)) {
      // Every other request gets its fields as placeholders too, before express changes its prototypes.
      if (callback === undefined) addExpressFields(req, addFields);
      return expressHandle.call(this, req, res, callback);
    }
    // Every field first, then the prototypes: V8 makes a new hidden class (and copies its descriptors) for each
    // field added to an object whose prototype was just changed, 1 kB of garbage each, for want of a cached transition.
    req.res = res;
    res.req = req;
    if (!res.locals) res.locals = Object.create(null);
    req.originalUrl = req.url;
    req.baseUrl = '';
    req.params = {};
    const next = (err?: unknown) => handOn(req, res, err);
    req.next = next;
    addFields(req);
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    try {
      const result: unknown = first(req, res, next);
      if (result instanceof Promise) result.catch((error: unknown) => next(error || new Error('Rejected promise')));
    } catch (error) {
      next(error);
    }
  };
}
