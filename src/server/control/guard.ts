import type { NextFunction, Request, Response } from 'express';
import type { EmuContext } from '../../context.js';
import { EMULATOR_ADMIN_SCOPE, verifyAccessToken } from '../../auth/tokens.js';
import { HttpError } from '../errors.js';
import { requestHost } from '../host-check.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const unauthorized = (message: string) =>
  new HttpError(401, message, { 'WWW-Authenticate': 'Bearer realm="platform-emu control plane"' });

/**
 * An `Origin` other than the emulator's own is a web page in the developer's browser: it may not change anything
 * here (no CORS grant is ever given, and a "simple" cross-origin POST would otherwise get through).
 */
function checkOrigin(req: Request): void {
  const origin = req.headers.origin;
  if (origin === undefined || SAFE_METHODS.has(req.method)) return;
  // The authority as parsed on arrival (hostCheck), never the raw header: `Host` text is not an origin's host.
  const host = requestHost(req);
  if (origin === `http://${host}` || origin === `https://${host}`) return;
  throw new HttpError(
    403,
    `Cross-origin requests may not change the emulator (Origin ${origin}): the control plane only accepts ` +
      `them from its own origin or from non-browser clients.`,
  );
}

/**
 * Open with auth on: the health check, the root certificate (public, as the platform's "Get root certificate"), and the
 * dashboard's page and modules (they hold no data; its API calls sign in).
 */
const isOpenRead = (req: Request) =>
  req.path === '/health' || req.path === '/tls/ca.pem' || req.path === '/ui' || req.path.startsWith('/ui/');

function bearerOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized('The Authorization header must be "Bearer <token>".');
    return match[1];
  }
  // A browser's EventSource cannot send headers: the event stream also takes the token as a query parameter.
  const query = req.path === '/events' ? req.query.access_token : undefined;
  return typeof query === 'string' ? query : undefined;
}

/**
 * The guard of every `/_emu` route (the emulator's own and the services' control-plane routers): cross-origin
 * changes are refused always; with `--auth on`, everything but `GET /_emu/health` needs the admin token, or any
 * token signed by the emulator that carries the scope `emulator:admin`.
 */
export function controlGuard(ctx: EmuContext, adminToken: () => string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    checkOrigin(req);
    if (ctx.config.auth === 'off' || (isOpenRead(req) && (req.method === 'GET' || req.method === 'HEAD')))
      return next();
    const token = bearerOf(req);
    if (token === undefined) {
      throw unauthorized(
        `The control plane needs the emulator's admin token when it runs with --auth on: "Authorization: ` +
          `Bearer <admin token>" (scope ${EMULATOR_ADMIN_SCOPE}). ` +
          'It is in the data directory\'s emulator.lock ("adminToken"), on the handle of startEmulator ' +
          '(adminToken), or the --admin-token given at start.',
      );
    }
    if (token === adminToken()) return next();
    let scopes: string[];
    try {
      const claims = verifyAccessToken(ctx.keys, token, ctx.clock.now());
      scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    } catch (err) {
      throw unauthorized(
        `The bearer token is not valid: ${(err as Error).message}. The control plane needs the emulator's admin token.`,
      );
    }
    if (!scopes.includes(EMULATOR_ADMIN_SCOPE)) {
      throw new HttpError(
        403,
        `The token lacks the scope ${EMULATOR_ADMIN_SCOPE} that the control plane (/_emu) requires: use the ` +
          `emulator's admin token.`,
      );
    }
    next();
  };
}
