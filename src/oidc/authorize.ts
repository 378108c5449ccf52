import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { runtimeOf, type EmuContext } from '../context.js';
import type { Route } from '../contract.js';
import { STATE_REPLACED } from '../server/events.js';
import { issuerUrl } from '../server/location.js';
import { findRealmClient, type Tenant } from '../services/tenant-manager/tenants.js';
import { loginPage, type AuthorizeRequest } from './login-page.js';
import { OAUTH_BODY_LIMIT, OAuthError, passwordGrantee, realmOf, type Grantee } from './oauth.js';
import { redirectAllowed } from './redirects.js';
import { currentSession, startSession, type SignInSession } from './sessions.js';

/** How long an authorization code may wait for its exchange (emulator clock). */
const CODE_TTL_MS = 60_000;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const NONCE_LIMIT = 512;

interface PendingCode {
  tenantId: string;
  clientId: string;
  redirectUri: string;
  challenge?: string;
  scope?: string;
  nonce?: string;
  grantee: Grantee;
  session: SignInSession;
  expiresAt: number;
}

/** Codes live in memory only: they are one-time, short-lived, and a restart may forget them. */
const codesOf = (ctx: EmuContext) =>
  runtimeOf(ctx, 'oidc:codes', () => {
    const codes = new Map<string, PendingCode>();
    ctx.events.on(STATE_REPLACED, () => codes.clear());
    return codes;
  });

export const param = (source: Record<string, unknown> | undefined, name: string) =>
  typeof source?.[name] === 'string' ? (source[name] as string) : undefined;

/** A client of the realm: its public frontend client (`<realm>-frontend`) or one of its clients. */
function checkClient(
  ctx: EmuContext,
  tenant: Tenant,
  clientId: string | undefined,
): { clientId: string; requirePkce: boolean } {
  if (!clientId) throw new OAuthError(400, 'invalid_request', 'client_id is required.');
  if (clientId === tenant.client_frontend_id) return { clientId, requirePkce: false };
  const client = findRealmClient(ctx, tenant.id, clientId);
  if (!client)
    throw new OAuthError(
      400,
      'invalid_client',
      `Unknown client_id ${clientId} for this realm; its public client is ${tenant.client_frontend_id}.`,
    );
  return { clientId, requirePkce: client.requirePkce === true };
}

/**
 * PKCE: optional, but when a challenge is sent it must be S256, and a client configured with `requirePkce` must send
 * one.
 */
function checkChallenge(source: Record<string, unknown>, requirePkce: boolean, clientId: string): string | undefined {
  const method = param(source, 'code_challenge_method');
  const challenge = param(source, 'code_challenge');
  if (challenge === undefined && method === undefined) {
    if (requirePkce)
      throw new OAuthError(
        400,
        'invalid_request',
        `The client ${clientId} requires PKCE: send code_challenge and code_challenge_method=S256.`,
      );
    return undefined;
  }
  if (method !== 'S256')
    throw new OAuthError(400, 'invalid_request', 'code_challenge_method must be S256 (plain is not accepted).');
  if (!challenge || !CHALLENGE.test(challenge))
    throw new OAuthError(
      400,
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the code_verifier (43 characters).',
    );
  return challenge;
}

/** The parameters of an authorization request (query of the GET, hidden fields of the POST), checked. */
function authorizeRequest(
  req: Request,
  ctx: EmuContext,
  tenant: Tenant,
  source: Record<string, unknown>,
): AuthorizeRequest {
  if (param(source, 'response_type') !== 'code')
    throw new OAuthError(400, 'unsupported_response_type', 'response_type must be code (the authorization code flow).');
  const { clientId, requirePkce } = checkClient(ctx, tenant, param(source, 'client_id'));
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
      `redirect_uri must be on this machine (localhost, 127.0.0.1, [::1]), on ${req.hostname}, or on a host ` +
        `named by --allow-host; got ${redirect.host}.`,
    );
  const responseMode = param(source, 'response_mode') ?? 'query';
  if (responseMode !== 'query' && responseMode !== 'fragment')
    throw new OAuthError(400, 'invalid_request', `response_mode must be query or fragment; got ${responseMode}.`);
  const nonce = param(source, 'nonce');
  if (nonce !== undefined && nonce.length > NONCE_LIMIT)
    throw new OAuthError(400, 'invalid_request', `nonce may have at most ${NONCE_LIMIT} characters.`);
  return {
    clientId,
    redirectUri: redirectUri!,
    state: param(source, 'state'),
    scope: param(source, 'scope'),
    challenge: checkChallenge(source, requirePkce, clientId),
    responseMode,
    nonce,
  };
}

/** Back to the app with the answer, in the query or the fragment as the request asked. */
function redirectBack(
  req: Request,
  res: Response,
  request: AuthorizeRequest,
  fields: Record<string, string | undefined>,
): void {
  const target = new URL(request.redirectUri);
  const answer = new URLSearchParams();
  for (const [name, value] of Object.entries({
    ...fields,
    state: request.state,
    iss: issuerUrl(req, realmOf(req).realm_name),
  }))
    if (value !== undefined) answer.set(name, value);
  if (request.responseMode === 'fragment') target.hash = answer.toString();
  else for (const [name, value] of answer) target.searchParams.set(name, value);
  res.set({ 'Cache-Control': 'no-store' }).redirect(302, target.href);
}

function issueCode(
  req: Request,
  res: Response,
  tenant: Tenant,
  request: AuthorizeRequest,
  session: SignInSession,
): void {
  const code = randomBytes(32).toString('base64url');
  const codes = codesOf(req.ctx);
  if (codes.size >= 10_000) codes.delete(codes.keys().next().value!);
  codes.set(code, {
    tenantId: tenant.id,
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    challenge: request.challenge,
    scope: request.scope,
    nonce: request.nonce,
    grantee: session.grantee,
    session,
    expiresAt: req.ctx.clock.nowMs() + CODE_TTL_MS,
  });
  redirectBack(req, res, request, { code, session_state: session.id });
}

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
  issueCode(req, res, tenant, request, startSession(ctx, res, tenant, grantee));
}

const AUTHORIZE_PATH = '/realms/{realm}/protocol/openid-connect/auth';

/**
 * `GET .../auth`: a browser signed in at the realm already gets its code at once (single sign-on), unless
 * `prompt=login`; `prompt=none` never shows the form (`error=login_required` instead). `POST .../auth`: the form's
 * credentials, a redirect with `code`, `state` and `session_state`.
 */
export const authorizeRoutes: Route[] = [
  {
    method: 'GET',
    path: AUTHORIZE_PATH,
    scope: null,
    summary: "The realm's login page (authorization code flow, PKCE when the client sends it)",
    handler: (req, res) => {
      const tenant = realmOf(req);
      const query = req.query as Record<string, unknown>;
      const request = authorizeRequest(req, req.ctx, tenant, query);
      const prompt = param(query, 'prompt');
      const session = prompt === 'login' ? undefined : currentSession(req, tenant);
      if (session) return issueCode(req, res, tenant, request, session);
      if (prompt === 'none')
        return redirectBack(req, res, request, {
          error: 'login_required',
          error_description: 'No one is signed in at this realm in this browser.',
        });
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

/**
 * `grant_type=authorization_code`: the code once, with its redirect_uri and client, and its verifier when PKCE was
 * used.
 */
export function authorizationCodeGrant(
  req: Request,
  tenant: Tenant,
): Omit<PendingCode, 'tenantId' | 'redirectUri' | 'challenge' | 'expiresAt'> {
  const codes = codesOf(req.ctx);
  const code = param(req.body, 'code');
  const pending = code === undefined ? undefined : codes.get(code);
  if (code !== undefined) codes.delete(code);
  if (!pending || pending.tenantId !== tenant.id || pending.expiresAt <= req.ctx.clock.nowMs())
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
  if (pending.challenge !== undefined) {
    if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
      throw new OAuthError(
        400,
        'invalid_grant',
        'code_verifier is required: 43 to 128 characters of A-Z, a-z, 0-9 and -._~.',
      );
    if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge)
      throw new OAuthError(400, 'invalid_grant', 'The code_verifier does not match the code_challenge.');
  } else if (verifier !== undefined) {
    throw new OAuthError(
      400,
      'invalid_grant',
      'code_verifier was sent, but the authorization request had no code_challenge.',
    );
  }
  return {
    clientId: pending.clientId,
    scope: pending.scope,
    nonce: pending.nonce,
    grantee: pending.grantee,
    session: pending.session,
  };
}
