import express, { type Request, type Response, type Router } from 'express';
import type { EmuContext } from '../context.js';
import { publicJwk } from '../auth/keys.js';
import { expandScopes } from '../auth/scopes.js';
import { DEFAULT_TOKEN_TTL, signAccessToken } from '../auth/tokens.js';
import { issuerUrl } from '../server/location.js';
import { percentDecoded } from '../server/percent-decoding.js';
import type { Route } from '../contract.js';
import { routeTableRouter } from '../server/router.js';
import { findRealmClient } from '../services/tenant-manager/tenants.js';
import { authorizationCodeGrant, authorizeRoutes } from './authorize.js';
import { OAUTH_BODY_LIMIT, OAuthError, passwordGrantee, realmOf, type Grantee } from './oauth.js';

function clientCredentials(req: Request): { id?: string; secret?: string } {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const [rawId, ...rest] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
    const id = percentDecoded(rawId);
    const secret = percentDecoded(rest.join(':'));
    if (id === undefined || secret === undefined) {
      throw new OAuthError(
        401,
        'invalid_client',
        'The Basic credentials are not valid percent-encoded client_id:client_secret.',
      );
    }
    return { id, secret };
  }
  return { id: req.body?.client_id, secret: req.body?.client_secret };
}

/** Narrows granted scopes to the requested ones (`scope` parameter); asking for more is an error. */
function narrow(granted: string[], requested: unknown): string[] {
  if (typeof requested !== 'string' || requested.trim() === '') return granted;
  const wanted = requested.split(' ').filter((s) => s && s !== 'openid');
  const missing = wanted.filter((s) => !granted.includes(s));
  if (missing.length > 0)
    throw new OAuthError(400, 'invalid_scope', `Not granted to this client or user: ${missing.join(' ')}.`);
  return wanted;
}

async function token(req: Request, res: Response): Promise<void> {
  const ctx = req.ctx;
  const tenant = realmOf(req);
  const grant = req.body?.grant_type;
  const { id: clientId, secret } = clientCredentials(req);
  const client = clientId ? findRealmClient(ctx, tenant.id, clientId) : undefined;
  // The realm's frontend client is public: it has no secret and serves the password grant only.
  const frontend = clientId !== undefined && clientId === tenant.client_frontend_id;
  let grantee: Grantee;
  let requestedScope: unknown = req.body?.scope;
  let codeClient: string | undefined;
  if (grant === 'client_credentials') {
    if (!client || client.secret !== secret)
      throw new OAuthError(401, 'invalid_client', 'Unknown client_id or wrong client_secret for this realm.');
    grantee = { subject: `service-account-${client.clientId}`, scopes: expandScopes(client.scopes, ctx.services) };
  } else if (grant === 'password') {
    if (clientId && !client && !frontend)
      throw new OAuthError(401, 'invalid_client', `Unknown client_id ${clientId} for this realm.`);
    grantee = await passwordGrantee(req, tenant);
  } else if (grant === 'authorization_code') {
    const granted = authorizationCodeGrant(req, tenant);
    grantee = granted.grantee;
    requestedScope = granted.scope;
    codeClient = granted.clientId;
  } else {
    throw new OAuthError(
      400,
      'unsupported_grant_type',
      'grant_type must be client_credentials, password or authorization_code.',
    );
  }
  const scopes = narrow(grantee.scopes, requestedScope);
  const accessToken = signAccessToken(ctx.keys, {
    issuer: issuerUrl(req, tenant.realm_name),
    tenantId: tenant.id,
    subject: grantee.subject,
    scopes,
    ttlSeconds: DEFAULT_TOKEN_TTL,
    clientId: codeClient ?? client?.clientId ?? (frontend ? clientId : undefined),
    username: grantee.username,
    issuedAt: ctx.clock.now(),
  });
  res.set('Cache-Control', 'no-store').json({
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: DEFAULT_TOKEN_TTL,
    scope: scopes.join(' '),
  });
}

function discovery(req: Request, res: Response): void {
  const issuer = issuerUrl(req, realmOf(req).realm_name);
  res.json({
    issuer,
    authorization_endpoint: `${issuer}/protocol/openid-connect/auth`,
    token_endpoint: `${issuer}/protocol/openid-connect/token`,
    jwks_uri: `${issuer}/protocol/openid-connect/certs`,
    grant_types_supported: ['client_credentials', 'password', 'authorization_code'],
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
  });
}

/** Under `/auth`: the realm's endpoints, open by nature (a token is what they give). */
const oidcRoutes: Route[] = [
  {
    method: 'GET',
    path: '/realms/{realm}/.well-known/openid-configuration',
    scope: null,
    summary: "The realm's OpenID Connect discovery document",
    handler: discovery,
  },
  {
    method: 'GET',
    path: '/realms/{realm}/protocol/openid-connect/certs',
    scope: null,
    summary: "The realm's signing keys (JWKS)",
    handler: (req, res) => {
      realmOf(req);
      res.json({ keys: [publicJwk(req.ctx.keys)] });
    },
  },
  ...authorizeRoutes,
  {
    method: 'POST',
    path: '/realms/{realm}/protocol/openid-connect/token',
    scope: null,
    summary: 'A token: client_credentials, password or authorization_code',
    body: 'form',
    bodyLimit: OAUTH_BODY_LIMIT,
    handler: token,
  },
];

/** The OpenID Connect issuer of every tenant's realm, at the paths OIDC client libraries expect. */
export function oidcRouter(ctx: EmuContext): Router {
  const router = express.Router().use(routeTableRouter(ctx, oidcRoutes));
  // OAuth's own error shape (RFC 6749 5.2), with the `message` every answer of the emulator has.
  router.use((err: unknown, _req: Request, res: Response, next: express.NextFunction) => {
    if (!(err instanceof OAuthError)) return next(err);
    res.status(err.status).json({ error: err.error, error_description: err.message, message: err.message });
  });
  return router;
}
