import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { EmuContext } from '../../context.js';
import type { StateDocument } from '../../store/index.js';
import { HttpError } from '../errors.js';
import { expressPath, templatePattern } from '../path-template.js';

/** What the control plane needs from the emulator that the server floor cannot do itself. */
export interface ControlHooks {
  health: () => Record<string, unknown> & { ready: boolean };
  /** `PUT /_emu/state`: a state document or a fixture file, validated, secrets kept where redacted. */
  importState: (input: unknown) => Promise<void>;
  /** Replaces the whole state with a checked document (snapshot restore), counters kept. */
  replaceState: (document: StateDocument) => Promise<void>;
  /** Back to the fixtures (or empty), real clock, no faults. */
  reset: (options: { empty?: boolean }) => Promise<void>;
  /** `POST /_emu/token`: a signed test token; throws with a reason a person can act on. */
  issueToken: (request: { tenant?: string; scopes?: string[]; platform?: boolean; ttlSeconds?: number }) => unknown;
}

/** One control-plane route: like a service route, a table entry, so that a wrong method is a 405 naming the right ones. */
export interface ControlRoute {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Under `/_emu`, in the path-template form: `/snapshots/{name}`. */
  path: string;
  /** A JSON body of any content type, optional; `large` for whole state documents. */
  body?: 'json' | 'large';
  handler: (req: Request, res: Response, ctx: EmuContext, hooks: ControlHooks) => unknown;
}

/** Mounts a table of control routes, with a 405 (and `Allow`) for a known path asked with another method. */
export function mountControlRoutes(ctx: EmuContext, hooks: ControlHooks, routes: readonly ControlRoute[]): Router {
  const router = express.Router();
  const json = express.json({ limit: ctx.config.bodyLimit, strict: false, type: () => true });
  const large = express.json({ limit: '512mb', strict: false, type: () => true });
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete';
    const parsers = route.body === 'large' ? [large] : route.body === 'json' ? [json] : [];
    router[method](expressPath(route.path), ...parsers, (req: Request, res: Response) => route.handler(req, res, ctx, hooks));
  }
  const patterns = routes.map((r) => ({ method: r.method, pattern: templatePattern(r.path) }));
  router.use((req: Request, _res: Response, next: NextFunction) => {
    const allowed = [...new Set(patterns.filter((p) => p.pattern.test(req.path)).map((p) => p.method))];
    if (allowed.length === 0) return next();
    throw new HttpError(405, `${req.method} is not allowed on /_emu${req.path}; allowed: ${allowed.join(', ')}.`, { Allow: allowed.join(', ') });
  });
  return router;
}
