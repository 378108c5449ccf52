import { percentDecoded } from './percent-decoding.js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { HttpMethod } from '../contract.js';
import { segmentsOf } from './path-template.js';

/** One route of a table: its method, spec-style template (`/endpoints/{endpointId}`) and handlers, in order. */
export interface MatchedRoute {
  method: HttpMethod;
  path: string;
  handlers: readonly RequestHandler[];
}

interface Compiled extends MatchedRoute {
  pattern: RegExp;
  keys: string[];
}

const PARAM = /^\{(\w+)\}$/;

/**
 * A template as express 5 (path-to-regexp 8, case-insensitive, trailing slash allowed) matches `/endpoints/:id`:
 * the same expression, so a path matches here exactly where it matched an express route.
 */
function compile(route: MatchedRoute): Compiled {
  const keys: string[] = [];
  const body = segmentsOf(route.path)
    .map((segment) => {
      const name = PARAM.exec(segment)?.[1];
      if (name) keys.push(name);
      return name ? '([^\\/]+)' : segment.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    })
    .join('\\/');
  return { ...route, keys, pattern: new RegExp(`^(?:\\/${body})(?:\\/$)?$`, 'i') };
}

/** express's parameter decoding: only values with a `%`; a malformed one is a 400 naming it. */
function decodeParam(value: string): string {
  if (!value.includes('%')) return value;
  const decoded = percentDecoded(value);
  if (decoded === undefined) throw Object.assign(new URIError(`Failed to decode param '${value}'`), { status: 400 });
  return decoded;
}

/** express's automatic OPTIONS answer: the methods of the routes on the path, sorted, as `Allow` and as the body. */
function sendOptions(res: Response, methods: readonly string[]): void {
  const allow = [...new Set(methods)].sort().join(', ');
  res.setHeader('Allow', allow);
  res.setHeader('Content-Length', Buffer.byteLength(allow));
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(allow);
}

/** The methods express lists for a route on OPTIONS: its own, and HEAD beside a GET. */
const optionsOf = (route: Compiled) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]);

/**
 * A route table compiled once into one request handler: routes are tried in the table's order (most specific first),
 * among those whose first segment can match (one map lookup), with express's semantics: HEAD is served by a GET
 * route, OPTIONS without a route answers the path's methods, parameters are percent-decoded (a malformed one is a
 * 400), a handler's `next()` goes on to the next matching route, `next('route')` skips the rest of its route, an
 * error or a rejected promise skips to the caller's `next(err)`. Nothing matched: the caller's `next()` (for 405 or
 * 404), with `req.params` as it was.
 */
export function compileRouteTable(routes: readonly MatchedRoute[]): RequestHandler {
  const compiled = routes.map(compile);
  const firstLiteral = (route: Compiled) => {
    const first = segmentsOf(route.path)[0];
    return first === undefined || PARAM.test(first) ? undefined : first.toLowerCase();
  };
  // Candidates by the request's first segment, lower-cased: the routes with that literal first and those with a
  // parameter there, in table order. The expression still decides; this only skips routes that cannot match.
  const anyFirst = compiled.filter((route) => firstLiteral(route) === undefined);
  const byFirst = new Map<string, Compiled[]>();
  for (const route of compiled) {
    const literal = firstLiteral(route);
    if (literal !== undefined && !byFirst.has(literal))
      byFirst.set(
        literal,
        compiled.filter((r) => firstLiteral(r) === undefined || firstLiteral(r) === literal),
      );
  }

  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.path;
    const end = path.indexOf('/', 1);
    const candidates = byFirst.get(path.slice(1, end === -1 ? undefined : end).toLowerCase()) ?? anyFirst;
    const method = req.method;
    const options: string[] | undefined = method === 'OPTIONS' ? [] : undefined;
    const parentParams = req.params;
    let index = 0;

    const done = (err?: unknown): void => {
      req.params = parentParams;
      if (err) return next(err);
      if (!options || options.length === 0) return next();
      try {
        sendOptions(res, options);
      } catch (error) {
        next(error);
      }
    };

    const nextRoute = (err?: unknown): void => {
      if (err === 'router') return done();
      if (err && err !== 'route') return done(err);
      let decodeError: unknown;
      while (index < candidates.length) {
        const route = candidates[index++];
        const match = route.pattern.exec(path);
        if (!match) continue;
        const params: Record<string, string> = {};
        try {
          for (let i = 0; i < route.keys.length; i++) params[route.keys[i]] = decodeParam(match[i + 1]);
        } catch (error) {
          decodeError ??= error;
          continue;
        }
        if (decodeError) continue;
        if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) {
          options?.push(...optionsOf(route));
          continue;
        }
        req.params = params;
        return run(route);
      }
      done(decodeError);
    };

    const run = (route: Compiled): void => {
      let step = 0;
      const proceed = (err?: unknown): void => {
        if (err === 'route') return nextRoute();
        if (err) return nextRoute(err);
        const handler = route.handlers[step++];
        if (!handler) return nextRoute();
        try {
          const result: unknown = handler(req, res, proceed);
          if (result && typeof (result as Promise<unknown>).then === 'function')
            (result as Promise<unknown>).then(undefined, (error: unknown) =>
              proceed(error || new Error('Rejected promise')),
            );
        } catch (error) {
          proceed(error);
        }
      };
      proceed();
    };

    nextRoute();
  };
}
