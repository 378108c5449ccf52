import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { runtimeOf, type EmuContext } from '../context.js';
import type { Route } from '../contract.js';
import { STATE_REPLACED } from '../server/events.js';
import { findRealmClient, type Tenant } from '../services/tenant-manager/tenants.js';
import { loginPage, type AuthorizeRequest } from './login-page.js';
import { OAUTH_BODY_LIMIT, OAuthError, passwordGrantee, realmOf, type Grantee } from './oauth.js';

/** How long an authorization code may wait for its exchange (emulator clock). */
const CODE_TTL_MS = 60_000;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

interface PendingCode {
  tenantId: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope?: string;
  grantee: Grantee;
  expiresAt: number;
}

/** Codes live in memory only: they are one-time, short-lived, and a restart may forget them. */
const codesOf = (ctx: EmuContext) =>
  runtimeOf(ctx, 'oidc:codes', () => {
    const codes = new Map<string, PendingCode>();
    ctx.events.on(STATE_REPLACED, () => codes.clear());
    return codes;
  });

const param = (source: Record<string, unknown> | undefined, name: string) =>
  typeof source?.[name] === 'string' ? (source[name] as string) : undefined;

/** A public client of the realm: its frontend client (`<realm>-frontend`) or one of its clients. */
function checkClient(ctx: EmuContext, tenant: Tenant, clientId: string | undefined): string {
  if (!clientId) throw new OAuthError(400, 'invalid_request', 'client_id is required.');
  if (clientId !== tenant.client_frontend_id && !findRealmClient(ctx, tenant.id, clientId))
    throw new OAuthError(
      400,
      'invalid_client',
      `Unknown client_id ${clientId} for this realm; its public client is ${tenant.client_frontend_id}.`,
    );
  return clientId;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * With no client registration to list redirect URIs, a code may only go to this machine, the host the login page
 * was asked on, or an `--allow-host` name: a link crafted elsewhere cannot send a user's code to another site.
 */
function redirectAllowed(req: Request, ctx: EmuContext, redirect: URL): boolean {
  const host = redirect.hostname.toLowerCase();
  return (
    LOOPBACK.has(host) ||
    host === req.hostname.toLowerCase() ||
    ctx.config.allowHosts.some((h) => h.toLowerCase() === host)
  );
}

/** The parameters of an authorization request (query of the GET, hidden fields of the POST), checked. */
function authorizeRequest(
  req: Request,
  ctx: EmuContext,
  tenant: Tenant,
  source: Record<string, unknown>,
): AuthorizeRequest {
  if (param(source, 'response_type') !== 'code')
    throw new OAuthError(
      400,
      'unsupported_response_type',
      'response_type must be code (the authorization code flow with PKCE).',
    );
  const clientId = checkClient(ctx, tenant, param(source, 'client_id'));
  const redirectUri = param(source, 'redirect_uri');
  let redirect: URL;
  try {
    redirect = new URL(redirectUri ?? '');
  } catch {
    throw new OAuthError(400, 'invalid_request', 'redirect_uri must be an absolute http or https URL.');
  }
  if (redirect.protocol !== 'http:' && redirect.protocol !== 'https:')
    throw new OAuthError(400, 'invalid_request', 'redirect_uri must be an absolute http or https URL.');
  if (redirect.hash) throw new OAuthError(400, 'invalid_request', 'redirect_uri may not have a fragment.');
  if (!redirectAllowed(req, ctx, redirect))
    throw new OAuthError(
      400,
      'invalid_request',
      `redirect_uri must be on this machine (localhost, 127.0.0.1, [::1]), on ${req.hostname}, or on a host named by --allow-host; got ${redirect.host}.`,
    );
  if (param(source, 'code_challenge_method') !== 'S256')
    throw new OAuthError(400, 'invalid_request', 'code_challenge_method must be S256: PKCE is required.');
  const challenge = param(source, 'code_challenge');
  if (!challenge || !CHALLENGE.test(challenge))
    throw new OAuthError(
      400,
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the code_verifier (43 characters).',
    );
  return {
    clientId,
    redirectUri: redirect.href,
    state: param(source, 'state'),
    scope: param(source, 'scope'),
    challenge,
  };
}

const AUTHORIZE_PATH = '/realms/{realm}/protocol/openid-connect/auth';

async function signIn(req: Request, res: Response): Promise<void> {
  const ctx = req.ctx;
  const tenant = realmOf(req);
  const request = authorizeRequest(req, ctx, tenant, req.body);
  let grantee: Grantee;
  try {
    grantee = await passwordGrantee(req, tenant);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    res
      .status(401)
      .set({ 'Cache-Control': 'no-store' })
      .type('html')
      .send(loginPage(tenant.realm_name, request, { username: param(req.body, 'username'), error: err.message }));
    return;
  }
  const code = randomBytes(32).toString('base64url');
  codesOf(ctx).set(code, {
    tenantId: tenant.id,
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    challenge: request.challenge,
    scope: request.scope,
    grantee,
    expiresAt: ctx.clock.now().getTime() + CODE_TTL_MS,
  });
  const target = new URL(request.redirectUri);
  target.searchParams.set('code', code);
  if (request.state !== undefined) target.searchParams.set('state', request.state);
  res.redirect(302, target.href);
}

/**
 * `GET .../auth`: the realm's login page. `POST .../auth`: the user's credentials; a redirect with `code` and `state`.
 */
export const authorizeRoutes: Route[] = [
  {
    method: 'GET',
    path: AUTHORIZE_PATH,
    scope: null,
    summary: "The realm's login page (authorization code flow with PKCE)",
    handler: (req, res) => {
      const tenant = realmOf(req);
      const request = authorizeRequest(req, req.ctx, tenant, req.query as Record<string, unknown>);
      res.set({ 'Cache-Control': 'no-store' }).type('html').send(loginPage(tenant.realm_name, request));
    },
  },
  {
    method: 'POST',
    path: AUTHORIZE_PATH,
    scope: null,
    summary: "The login form's credentials: a redirect with the code",
    body: 'form',
    bodyLimit: OAUTH_BODY_LIMIT,
    handler: signIn,
  },
];

/** `grant_type=authorization_code` at the token endpoint: the code once, with its redirect_uri, client and verifier. */
export function authorizationCodeGrant(
  req: Request,
  tenant: Tenant,
): { grantee: Grantee; clientId: string; scope?: string } {
  const codes = codesOf(req.ctx);
  const code = param(req.body, 'code');
  const pending = code === undefined ? undefined : codes.get(code);
  if (code !== undefined) codes.delete(code);
  if (!pending || pending.tenantId !== tenant.id || pending.expiresAt <= req.ctx.clock.now().getTime())
    throw new OAuthError(
      400,
      'invalid_grant',
      'The code is unknown, used already, expired (it lives 60 seconds) or of another realm.',
    );
  if (param(req.body, 'redirect_uri') !== pending.redirectUri)
    throw new OAuthError(400, 'invalid_grant', 'redirect_uri must be the one of the authorization request.');
  if (param(req.body, 'client_id') !== pending.clientId)
    throw new OAuthError(400, 'invalid_grant', 'client_id must be the one of the authorization request.');
  const verifier = param(req.body, 'code_verifier');
  if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
    throw new OAuthError(
      400,
      'invalid_grant',
      'code_verifier is required: 43 to 128 characters of A-Z, a-z, 0-9 and -._~.',
    );
  if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge)
    throw new OAuthError(400, 'invalid_grant', 'The code_verifier does not match the code_challenge.');
  return { grantee: pending.grantee, clientId: pending.clientId, scope: pending.scope };
}
