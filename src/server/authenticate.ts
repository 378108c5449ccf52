import type { NextFunction, Request, Response } from 'express';
import type { EmuContext } from '../context.js';
import { acceptedScopes } from '../auth/scopes.js';
import { verifyAccessToken } from '../auth/tokens.js';
import { HttpError } from './errors.js';
import { STATE_REPLACED } from './events.js';
import { percentDecoded } from './percent-decoding.js';
import type { Route } from '../contract.js';

/** Who is calling: the tenant the request acts in and what it may do. */
export interface Principal {
  tenantId: string;
  /** `all` when auth is off. */
  scopes: ReadonlySet<string> | 'all';
  subject: string;
}

declare global {
  namespace Express {
    interface Request {
      ctx: EmuContext;
      principal: Principal;
    }
  }
}

interface Verified {
  principal: Principal;
  expiresAt: number;
}

const CACHE_LIMIT = 10_000;
const ISSUER_PATH = /\/auth\/realms\/([^/]+)$/;

const unauthorized = (message: string) =>
  new HttpError(401, message, { 'WWW-Authenticate': 'Bearer realm="platform-emu"' });

/** Verifies a bearer token once; later requests with the same token are a map lookup until it expires. */
export function tokenVerifier(ctx: EmuContext) {
  const cache = new Map<string, Verified>();
  // A token of a tenant that a reset or an import removed must stop working at once.
  ctx.events.on(STATE_REPLACED, () => cache.clear());
  return (token: string): Principal => {
    const hit = cache.get(token);
    const now = ctx.clock.now();
    if (hit && hit.expiresAt > now.getTime()) return hit.principal;
    let claims;
    try {
      // Expiry by the emulator's clock: advancing it past a token's `exp` makes the token expire.
      claims = verifyAccessToken(ctx.keys, token, now);
    } catch (err) {
      throw unauthorized(
        `The bearer token is not valid: ${(err as Error).message}. Get a new one with \`platform-emu token\`.`,
      );
    }
    // The realms' ID and refresh tokens are signed with the same key: only an access token opens an operation.
    if (claims.typ !== undefined && claims.typ !== 'Bearer') {
      throw unauthorized(`The bearer token is an ${claims.typ} token, not an access token: send the access_token.`);
    }
    const realm = ISSUER_PATH.exec(claims.iss ?? '')?.[1];
    const realmName = realm ? percentDecoded(realm) : undefined;
    const tenantId = realmName === undefined ? undefined : ctx.realms.tenantIdOfRealm(realmName);
    if (!tenantId) throw unauthorized(`The token's issuer ${claims.iss} is not a realm of this emulator.`);
    if (claims.tenant_id !== tenantId)
      throw unauthorized(`The token's tenant_id does not belong to realm ${realmName}.`);
    const principal: Principal = {
      tenantId,
      scopes: new Set(typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []),
      subject: claims.sub,
    };
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(token, { principal, expiresAt: (claims.exp ?? 0) * 1000 });
    return principal;
  };
}

/** The auth step of one route, built once at mount: who the caller is, and whether its scope allows the route. */
export function authenticate(ctx: EmuContext, route: Route, verify: (token: string) => Principal) {
  const scopes = route.scope ? acceptedScopes(route.scope) : [];
  const open = ctx.config.auth === 'off' || route.scope === null || route.customAuth === true;
  // Auth off: every request is the same anonymous caller, one object while the default tenant stays the same.
  let anonymous: Principal | undefined;
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (open) {
      const tenantId = ctx.defaultTenantId();
      if (anonymous?.tenantId !== tenantId) anonymous = { tenantId, scopes: 'all', subject: 'anonymous' };
      req.principal = anonymous;
      return next();
    }
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      throw unauthorized(
        header
          ? 'The Authorization header must be "Bearer <token>".'
          : 'This operation needs "Authorization: Bearer <token>" (the emulator runs with --auth on). Get a ' +
              'token with `platform-emu token`.',
      );
    }
    const principal = verify(match[1]);
    if (principal.scopes !== 'all' && !scopes.some((s) => (principal.scopes as ReadonlySet<string>).has(s))) {
      throw new HttpError(
        route.deniedStatus ?? 403,
        route.deniedStatus === 404
          ? 'Not found, or the token may not see it.'
          : `The token lacks the scope ${scopes.join(' or ')} that ${route.method} ${route.path} requires.`,
      );
    }
    req.principal = principal;
    next();
  };
}
