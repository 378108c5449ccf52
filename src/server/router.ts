import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { EmuContext } from '../context.js';
import { authenticate, type Principal } from './authenticate.js';
import { HttpError } from './errors.js';
import type { Route } from './service.js';

/** `/endpoints/{endpointId}` (spec style) to `/endpoints/:endpointId` (express style). */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

function pathPattern(path: string): RegExp {
  const body = path
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body.replace(/\/$/, '')}/?$`);
}

/** Answers 405 with `Allow` when the path exists with other methods; otherwise passes on (to a 404). */
export function methodNotAllowed(routes: readonly Route[]) {
  const patterns = routes.map((route) => ({ method: route.method, pattern: pathPattern(route.path) }));
  return (req: Request, _res: Response, next: NextFunction): void => {
    const allowed = new Set(patterns.filter((p) => p.pattern.test(req.path)).map((p) => p.method));
    if (allowed.size === 0) return next();
    if (allowed.has('GET')) allowed.add('HEAD' as never);
    const allow = [...allowed].join(', ');
    throw new HttpError(405, `${req.method} is not allowed on ${req.originalUrl.split('?')[0]}; allowed: ${allow}.`, { Allow: allow });
  };
}

function hasBody(route: Route): 'json' | 'raw' | 'none' {
  return route.body ?? (route.method === 'GET' || route.method === 'DELETE' ? 'none' : 'json');
}

/** Literal segments before parameters, so `/endpoints/commands` is tried before `/endpoints/{endpointId}`. */
function bySpecificity(a: Route, b: Route): number {
  const sa = a.path.split('/');
  const sb = b.path.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i].startsWith('{') ? 1 : 0;
    const pb = sb[i].startsWith('{') ? 1 : 0;
    if (pa !== pb) return pa - pb;
  }
  return 0;
}

/**
 * Routes, most specific first (a stable sort: among equals, the first listed wins), each with auth from
 * its scope, a body parser only where a body is expected, and its handler.
 */
export function serviceRouter(ctx: EmuContext, routes: readonly Route[], verify: (token: string) => Principal): Router {
  const router = express.Router();
  const json = express.json({ limit: ctx.config.bodyLimit, strict: false, type: () => true });
  const raw = express.raw({ limit: ctx.config.bodyLimit, type: () => true });
  for (const route of [...routes].sort(bySpecificity)) {
    const handlers = [authenticate(ctx, route, verify)];
    const body = hasBody(route);
    if (body === 'json') handlers.push(json);
    if (body === 'raw') handlers.push(raw);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](expressPath(route.path), ...handlers, route.handler);
  }
  return router;
}
