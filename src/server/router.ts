import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { compileRouteTable, type MatchedRoute } from './route-matcher.js';
import type { EmuContext } from '../context.js';
import { authenticate, type Principal } from './authenticate.js';
import type { Route } from '../contract.js';
import { checkJsonDepth } from '../store/index.js';
import { HttpError } from './errors.js';
import { jsonBody } from './json-body.js';
import type { ValidateFunction } from 'ajv';
import { compileSchema, describeSchemaError } from '../schema/json-schema.js';
import { bySpecificity, templatePattern } from './path-template.js';

/** Answers 405 with `Allow` when the path exists with other methods; otherwise passes on (to a 404). */
export function methodNotAllowed(routes: readonly Route[]) {
  // Built on the first request that no route took: a start does not pay for it.
  let patterns: Array<{ method: Route['method']; pattern: RegExp }> | undefined;
  return (req: Request, _res: Response, next: NextFunction): void => {
    patterns ??= routes.map((route) => ({ method: route.method, pattern: templatePattern(route.path) }));
    const allowed = new Set(patterns.filter((p) => p.pattern.test(req.path)).map((p) => p.method));
    if (allowed.size === 0) return next();
    if (allowed.has('GET')) allowed.add('HEAD' as never);
    const allow = [...allowed].join(', ');
    throw new HttpError(405, `${req.method} is not allowed on ${req.originalUrl.split('?')[0]}; allowed: ${allow}.`, {
      Allow: allow,
    });
  };
}

/**
 * `router.use(path, ...handlers)` as one step of the enclosing router, without a Router of its own (a Router level
 * was a few per cent of a GET of one record, `npm run bench` figure 2a). The same matching as express's: `path`
 * case-insensitive, followed by `/` or the end; for each handler `req.url` loses the path (keeping a leading `/`)
 * and `req.baseUrl` gains it, both restored before the next handler or the caller's `next`. An error skips the
 * remaining handlers (none takes errors), `next('router')` leaves, `next('route')` goes on as `next()`.
 */
export function mountedAt(path: string, handlers: readonly RequestHandler[]): RequestHandler {
  const pattern = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:\\/$)?(?=\\/|$)`, 'i');
  return (req, res, next) => {
    const removed = pattern.exec(req.path)?.[0];
    if (removed === undefined) return next();
    const url = req.url;
    const parentUrl = req.baseUrl;
    let index = 0;
    const step = (err?: unknown): void => {
      req.url = url;
      req.baseUrl = parentUrl;
      if (err === 'router') return next();
      if (err !== undefined && err !== null && err !== 'route') return next(err);
      const handler = handlers[index++];
      if (!handler) return next();
      const rest = url.slice(removed.length);
      req.url = rest.startsWith('/') ? rest : `/${rest}`;
      req.baseUrl = parentUrl + (removed.endsWith('/') ? removed.slice(0, -1) : removed);
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.catch((error: unknown) => step(error || new Error('Rejected promise')));
      } catch (error) {
        step(error);
      }
    };
    step();
  };
}

export function bodyKind(route: Route): 'json' | 'raw' | 'form' | 'none' {
  return route.body ?? (route.method === 'GET' || route.method === 'DELETE' ? 'none' : 'json');
}

/** Every JSON body, whatever its route: nesting past the limit is a 400 naming it, before any handler sees it. */
function depthLimit(req: Request, _res: Response, next: NextFunction): void {
  checkJsonDepth(req.body, 'the request body');
  next();
}

/**
 * Checks a JSON body against the route's schema before the handler runs: 400 (or the route's status) naming the
 * rule. The schema is compiled on the route's first request, so a start does not pay for operations never called.
 */
function bodyValidator(route: Route) {
  const status = route.invalidBodyStatus ?? 400;
  let check: ValidateFunction | undefined;
  let emptyAllowed = false;
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!check) {
      check = compileSchema(route.bodySchema!);
      emptyAllowed = check({});
    }
    // No body at all reads as `{}` where `{}` is a valid body (`POST /applications` with every field optional).
    if (req.body === undefined) {
      if (!emptyAllowed) throw new HttpError(status, 'The request body is missing: this operation takes a JSON body.');
      req.body = {};
    }
    if (check(req.body)) return next();
    throw new HttpError(status, `Invalid request body: ${describeSchemaError(check.errors![0])}.`);
  };
}

function markBareErrors(_req: Request, res: Response, next: NextFunction): void {
  res.locals.bareErrors = true;
  next();
}

/**
 * Routes, most specific first (a stable sort: among equals, the first listed wins), each with auth from
 * its scope (none without `verify`: the routes outside the services), a body parser and schema check only where a
 * body is expected, and its handler; compiled into one matcher (src/server/route-matcher.ts: express's matching
 * without a Router level per request, `npm run bench` figures 2a and 2d).
 */
export function serviceRouter(
  ctx: EmuContext,
  routes: readonly Route[],
  verify: ((token: string) => Principal) | undefined,
): RequestHandler {
  const json = jsonBody(
    ctx.config.bodyLimit,
    express.json({ limit: ctx.config.bodyLimit, strict: false, type: () => true }),
  );
  const raw = express.raw({ limit: ctx.config.bodyLimit, type: () => true });
  const parsers = (route: Route, body: 'json' | 'raw' | 'form'): RequestHandler[] => {
    const limit = route.bodyLimit;
    if (body === 'form') return [express.urlencoded({ extended: false, limit }), express.json({ limit }), depthLimit];
    if (body === 'raw') return [limit === undefined ? raw : express.raw({ limit, type: () => true })];
    return [limit === undefined ? json : express.json({ limit, strict: false, type: () => true }), depthLimit];
  };
  const table: MatchedRoute[] = [];
  for (const route of [...routes].sort((a, b) => bySpecificity(a.path, b.path))) {
    const handlers: RequestHandler[] = route.bareErrors ? [markBareErrors] : [];
    if (verify) handlers.push(authenticate(ctx, route, verify));
    const body = bodyKind(route);
    if (body !== 'none') handlers.push(...parsers(route, body));
    if (body === 'json' && route.bodySchema) handlers.push(bodyValidator(route));
    table.push({ method: route.method, path: route.path, handlers: [...handlers, route.handler as RequestHandler] });
  }
  return compileRouteTable(table);
}

/**
 * A table of routes outside the services (the control plane under `/_emu`, the dashboard's API, the OIDC realms):
 * the same body parsing, body schemas, 405 and error shape as a service's. They take no scope: the control plane's
 * guard is in front of `/_emu`, and the OIDC endpoints are open by nature.
 */
export function routeTableRouter(ctx: EmuContext, routes: readonly Route[]): Router {
  const scoped = routes.find((route) => route.scope !== null);
  if (scoped)
    throw new Error(
      `${scoped.method} ${scoped.path}: a route outside the services takes no scope (its guard is in front of it).`,
    );
  return express.Router().use(serviceRouter(ctx, routes, undefined), methodNotAllowed(routes));
}
