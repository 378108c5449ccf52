import express, { type Request, type Response, type Router } from 'express';
import type { EmuContext } from '../context.js';
import { publicJwk } from '../auth/keys.js';
import { expandScopes } from '../auth/scopes.js';
import { issuerUrl } from '../server/location.js';
import { percentDecoded } from '../server/percent-decoding.js';
import type { Route } from '../contract.js';
import { routeTableRouter } from '../server/router.js';
import { findRealmClient } from '../services/tenant-manager/tenants.js';
import { authorizationCodeGrant, authorizeRoutes } from './authorize.js';
import { grantScopes, OIDC_SCOPES } from './grant-scopes.js';
import { refreshGrant, tokenResponse, type Issue } from './issue.js';
import { OAUTH_BODY_LIMIT, OAuthError, passwordGrantee, realmOf } from './oauth.js';
import { sessionRoutes } from './session-pages.js';

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

const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'password'];

/** What a grant gives: who, with which scopes, for which client, in which session. */
async function grantOf(req: Request): Promise<Issue> {
  const ctx = req.ctx;
  const tenant = realmOf(req);
  const grant = req.body?.grant_type;
  const { id: clientId, secret } = clientCredentials(req);
  const client = clientId ? findRealmClient(ctx, tenant.id, clientId) : undefined;
  // The realm's frontend client is public: it has no secret.
  const frontend = clientId !== undefined && clientId === tenant.client_frontend_id;
  if (grant === 'client_credentials') {
    if (!client || client.secret !== secret)
      throw new OAuthError(401, 'invalid_client', 'Unknown client_id or wrong client_secret for this realm.');
    const granted = expandScopes(client.scopes, ctx.services);
    return {
      tenant,
      grantee: { subject: `service-account-${client.clientId}`, scopes: granted },
      scopes: grantScopes(granted, req.body?.scope),
      clientId: client.clientId,
    };
  }
  if (grant === 'password') {
    if (clientId && !client && !frontend)
      throw new OAuthError(401, 'invalid_client', `Unknown client_id ${clientId} for this realm.`);
    const grantee = await passwordGrantee(req, tenant);
    return {
      tenant,
      grantee,
      scopes: grantScopes(grantee.scopes, req.body?.scope),
      clientId: client?.clientId ?? (frontend ? clientId : undefined),
    };
  }
  if (grant === 'authorization_code') {
    const code = authorizationCodeGrant(req, tenant);
    return {
      tenant,
      grantee: code.grantee,
      scopes: grantScopes(code.grantee.scopes, code.scope),
      clientId: code.clientId,
      session: code.session,
      nonce: code.nonce,
    };
  }
  if (grant === 'refresh_token') return refreshGrant(req, tenant, clientId);
  throw new OAuthError(400, 'unsupported_grant_type', `grant_type must be one of ${GRANT_TYPES.join(', ')}.`);
}

async function token(req: Request, res: Response): Promise<void> {
  res.set('Cache-Control', 'no-store').json(tokenResponse(req, await grantOf(req)));
}

function discovery(req: Request, res: Response): void {
  const issuer = issuerUrl(req, realmOf(req).realm_name);
  const oidc = `${issuer}/protocol/openid-connect`;
  res.json({
    issuer,
    authorization_endpoint: `${oidc}/auth`,
    token_endpoint: `${oidc}/token`,
    userinfo_endpoint: `${oidc}/userinfo`,
    end_session_endpoint: `${oidc}/logout`,
    jwks_uri: `${oidc}/certs`,
    check_session_iframe: `${oidc}/login-status-iframe.html`,
    grant_types_supported: GRANT_TYPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'fragment'],
    scopes_supported: [...OIDC_SCOPES],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'sid',
      'azp',
      'preferred_username',
      'email',
      'tenant_id',
      'scope',
    ],
    code_challenge_methods_supported: ['S256'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
    frontchannel_logout_supported: false,
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
    summary: 'A token: authorization_code, refresh_token, client_credentials or password',
    body: 'form',
    bodyLimit: OAUTH_BODY_LIMIT,
    handler: token,
  },
  ...sessionRoutes,
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
