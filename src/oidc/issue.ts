import type { Request } from 'express';
import { DEFAULT_TOKEN_TTL, signAccessToken, signToken, verifyAccessToken } from '../auth/tokens.js';
import { issuerUrl } from '../server/location.js';
import { percentDecoded } from '../server/percent-decoding.js';
import type { Tenant } from '../services/tenant-manager/tenants.js';
import { OIDC_SCOPES, scopeText, type GrantedScopes } from './grant-scopes.js';
import { OAuthError, type Grantee } from './oauth.js';
import { isSessionActive } from './sessions.js';

/** A refresh token lives 30 minutes (Keycloak's SSO idle time) on the emulator clock, an offline one 30 days. */
export const REFRESH_TTL = 1800;
export const OFFLINE_TTL = 30 * 24 * 3600;

export interface Issue {
  tenant: Tenant;
  grantee: Grantee;
  scopes: GrantedScopes;
  clientId?: string;
  /** The sign-in session (authorization code and refresh grants): `sid`, refresh tokens, logout. */
  session?: { id: string; authTime: number };
  nonce?: string;
}

interface RefreshClaims {
  typ: 'Refresh' | 'Offline';
  iss: string;
  sub: string;
  azp?: string;
  scope: string;
  sid?: string;
  auth_time?: number;
  nonce?: string;
  preferred_username?: string;
}

/** A user name that is an e-mail address is also the user's `email` claim. */
export const emailOf = (username: string | undefined) =>
  username && /^[^@\s]+@[^@\s]+$/.test(username) ? username : undefined;

/** The token endpoint's answer: an access token, and for sign-ins a refresh token and (scope `openid`) an ID token. */
export function tokenResponse(req: Request, issue: Issue): Record<string, unknown> {
  const { ctx } = req;
  const issuer = issuerUrl(req, issue.tenant.realm_name);
  const issuedAt = ctx.clock.now();
  const iat = Math.floor(issuedAt.getTime() / 1000);
  const scope = scopeText(issue.scopes);
  const { grantee, clientId, session, nonce } = issue;
  const answer: Record<string, unknown> = {
    access_token: signAccessToken(ctx.keys, {
      issuer,
      tenantId: issue.tenant.id,
      subject: grantee.subject,
      scopes: [...issue.scopes.platform, ...issue.scopes.oidc],
      ttlSeconds: DEFAULT_TOKEN_TTL,
      clientId,
      username: grantee.username,
      issuedAt,
      sessionId: session?.id,
      nonce,
    }),
    token_type: 'Bearer',
    expires_in: DEFAULT_TOKEN_TTL,
    scope,
  };
  const offline = issue.scopes.oidc.includes('offline_access');
  if (session || offline) {
    const claims: Omit<RefreshClaims, 'iss'> & { iat: number } = {
      typ: offline ? 'Offline' : 'Refresh',
      sub: grantee.subject,
      scope,
      iat,
      ...(clientId ? { azp: clientId } : {}),
      ...(session ? { sid: session.id, auth_time: session.authTime } : {}),
      ...(nonce ? { nonce } : {}),
      ...(grantee.username ? { preferred_username: grantee.username } : {}),
    };
    const ttl = offline ? OFFLINE_TTL : REFRESH_TTL;
    answer.refresh_token = signToken(ctx.keys, claims, { issuer, ttlSeconds: ttl });
    answer.refresh_expires_in = ttl;
  }
  if (issue.scopes.oidc.includes('openid') && clientId) {
    answer.id_token = signToken(
      ctx.keys,
      {
        typ: 'ID',
        sub: grantee.subject,
        aud: clientId,
        azp: clientId,
        iat,
        ...(session ? { sid: session.id, session_state: session.id, auth_time: session.authTime } : {}),
        ...(nonce ? { nonce } : {}),
        ...(grantee.username ? { preferred_username: grantee.username } : {}),
        ...(emailOf(grantee.username) ? { email: grantee.username } : {}),
      },
      { issuer, ttlSeconds: DEFAULT_TOKEN_TTL },
    );
  }
  if (session) answer.session_state = session.id;
  answer['not-before-policy'] = 0;
  return answer;
}

const REALM_OF_ISSUER = /\/auth\/realms\/([^/]+)$/;

/**
 * A token's claims if the emulator signed it, it is valid now (emulator clock) and this realm issued it; else throws.
 */
export function realmTokenClaims(req: Request, tenant: Tenant, token: string): Record<string, unknown> {
  let claims: Record<string, unknown>;
  try {
    claims = verifyAccessToken(req.ctx.keys, token, req.ctx.clock.now()) as unknown as Record<string, unknown>;
  } catch (err) {
    throw new OAuthError(400, 'invalid_grant', `The token is not valid: ${(err as Error).message}.`);
  }
  const realm = REALM_OF_ISSUER.exec(String(claims.iss ?? ''))?.[1];
  if (realm === undefined || percentDecoded(realm) !== tenant.realm_name) {
    throw new OAuthError(400, 'invalid_grant', 'The token was not issued by this realm.');
  }
  return claims;
}

/**
 * `grant_type=refresh_token`: a refresh token of this realm and client whose sign-in session is still open (an
 * offline one outlives it), on the emulator clock. The new tokens carry the same scopes, session and nonce.
 */
export function refreshGrant(req: Request, tenant: Tenant, clientId: string | undefined): Issue {
  const token = typeof req.body?.refresh_token === 'string' ? (req.body.refresh_token as string) : undefined;
  if (!token) throw new OAuthError(400, 'invalid_request', 'refresh_token is required.');
  const claims = realmTokenClaims(req, tenant, token) as unknown as RefreshClaims;
  if (claims.typ !== 'Refresh' && claims.typ !== 'Offline') {
    throw new OAuthError(400, 'invalid_grant', `The token is an ${String(claims.typ)} token, not a refresh token.`);
  }
  if (claims.azp !== undefined && clientId !== claims.azp)
    throw new OAuthError(400, 'invalid_grant', `The refresh token was issued to the client ${claims.azp}.`);
  if (claims.typ === 'Refresh' && (claims.sid === undefined || !isSessionActive(req.ctx, claims.sid))) {
    throw new OAuthError(
      400,
      'invalid_grant',
      'The session of this refresh token has ended (signed out, or the emulator restarted): sign in again.',
    );
  }
  const words = claims.scope.split(' ').filter(Boolean);
  const platform = words.filter((s) => !OIDC_SCOPES.has(s));
  return {
    tenant,
    grantee: { subject: claims.sub, username: claims.preferred_username, scopes: platform },
    scopes: { platform, oidc: words.filter((s) => OIDC_SCOPES.has(s)) },
    clientId: claims.azp,
    session:
      claims.sid !== undefined && claims.auth_time !== undefined
        ? { id: claims.sid, authTime: claims.auth_time }
        : undefined,
    nonce: claims.nonce,
  };
}
