import express, { type Express, type Request, type RequestHandler, type Router } from 'express';
import type { EmuContext } from '../context.js';
import { tokenVerifier } from './authenticate.js';
import { controlGuard } from './control/guard.js';
import { compressLargeJson } from './compress.js';
import { errorHandler, HttpError } from './errors.js';
import { applyHttpFault, faultsOf } from './faults.js';
import { crossOrigin } from './cross-origin.js';
import { enterFirstDirectly, firstPathLevel } from './direct-entry.js';
import { hostCheck } from './host-check.js';
import { leanJson } from './json-answer.js';
import { requestJournal } from './journal.js';
import { addRequestFields } from './request-fields.js';
import { methodNotAllowed, mountedAt, serviceRouter } from './router.js';
import { bareOperations } from './service-list.js';

export interface AppExtras {
  /** Routers mounted beside the services: the control plane, the KP1 HTTP binding, the OIDC realms. */
  mounts: Array<{ path: string; router: Router }>;
  /** The admin token the control plane accepts with auth on (made when first asked). */
  adminToken: () => string;
}

/** The platform's ingress merges repeated slashes (`/bcx/api/v1//applications`), and so do we. */
function mergeSlashes(req: Request): void {
  const query = req.url.indexOf('?');
  const path = query === -1 ? req.url : req.url.slice(0, query);
  if (path.includes('//')) req.url = path.replace(/\/{2,}/g, '/') + (query === -1 ? '' : req.url.slice(query));
}

/** Every service under its own prefix (one map lookup), and all of them at the bare `/api/v1`. */
export function createApp(ctx: EmuContext, extras: AppExtras): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.response.json = leanJson(app.response.json);
  // Hot path first: a service prefix is one map lookup, before the control plane, KP1 and OIDC mounts.
  // A service's routes are registered on its first request: a start pays nothing for the services it never calls.
  const verify = tokenVerifier(ctx);
  const byPrefix = new Map<string, RequestHandler>();
  for (const service of ctx.services) {
    let mount: RequestHandler | undefined;
    byPrefix.set(service.prefix, (req, res, next) => {
      mount ??= mountedAt(`/${service.prefix}/api/v1`, [
        serviceRouter(ctx, service.routes, verify),
        methodNotAllowed(service.routes),
      ]);
      mount(req, res, next);
    });
  }
  const journal = requestJournal(ctx);
  const checkHost = hostCheck(ctx.config);
  const checkOrigin = crossOrigin(ctx.config);
  const faults = faultsOf(ctx);
  const compress = compressLargeJson();
  const front: RequestHandler = (req, res, next) => {
    journal(req, res);
    compress(req, res);
    mergeSlashes(req);
    req.ctx = ctx;
    checkHost(req);
    if (checkOrigin(req, res)) return;
    // API answers are always revalidated (their validators make that cheap); pages and tokens say otherwise.
    res.setHeader('Cache-Control', 'no-cache');
    if (faults.http.length > 0) {
      const fault = faults.hit(req);
      if (fault) return applyHttpFault(fault, req, res, () => route(req, res, next));
    }
    route(req, res, next);
  };
  enterFirstDirectly(app, (level) => direct.has(level), front, addRequestFields);
  const route = (req: Request, res: express.Response, next: express.NextFunction) => {
    const end = req.path.indexOf('/', 1);
    const mount = byPrefix.get(req.path.slice(1, end === -1 ? undefined : end));
    if (mount) mount(req, res, next);
    else next();
  };
  // A service's requests enter the middleware above directly, unless a mount below could also take their path.
  const mounted = new Set(['_emu', 'api', ...extras.mounts.map((m) => firstPathLevel(m.path)?.toLowerCase())]);
  const direct = new Set([...byPrefix.keys()].filter((prefix) => !mounted.has(prefix.toLowerCase())));
  app.use('/_emu', controlGuard(ctx, extras.adminToken));
  for (const { path, router } of extras.mounts) app.use(path, router);

  // Spec 1 `{base_url}`: the same operations without a prefix; a path two services share goes to its owner
  // (test/service-list.test.ts checks that every shared path has one). Also registered on the first request.
  let bare: Router | undefined;
  app.use('/api/v1', (req, res, next) => {
    if (!bare) {
      const bareRoutes = bareOperations(ctx.services).map((o) => o.route);
      bare = express.Router().use(serviceRouter(ctx, bareRoutes, verify), methodNotAllowed(bareRoutes));
    }
    bare(req, res, next);
  });

  app.use((req) => {
    throw new HttpError(
      404,
      `No operation at ${req.method} ${req.originalUrl.split('?')[0]}. Services are under /<prefix>/api/v1 ` +
        `(see GET /app-manager/api/v1/service-instances, or \`platform-emu call --list\`).`,
    );
  });
  app.use(errorHandler(ctx.log));
  return app;
}
