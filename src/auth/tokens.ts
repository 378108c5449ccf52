import { createRequire } from 'node:module';
import type { SigningKey } from './keys.js';

// jsonwebtoken is loaded when a token is first signed or verified: the CLI reads scopes and paths from here without it.
let jwtModule: typeof import('jsonwebtoken') | undefined;
const jwt = () => (jwtModule ??= createRequire(import.meta.url)('jsonwebtoken') as typeof import('jsonwebtoken'));

export interface AccessClaims {
  iss: string;
  sub: string;
  tenant_id: string;
  scope: string;
  azp?: string;
  preferred_username?: string;
  typ?: string;
  exp?: number;
  iat?: number;
}

export interface TokenRequest {
  issuer: string;
  tenantId: string;
  subject: string;
  scopes: string[];
  ttlSeconds: number;
  clientId?: string;
  username?: string;
  /** The issue time (`iat`; `exp` counts from it): the emulator's virtual clock. Default: the machine's time. */
  issuedAt?: Date;
  /** The realm sign-in session (authorization code flow): `sid` and `session_state`, as Keycloak's tokens carry. */
  sessionId?: string;
  /** The authorization request's `nonce`, echoed (keycloak-js before version 10 compares the access token's too). */
  nonce?: string;
}

export const DEFAULT_TOKEN_TTL = 3600;

/** The path of a realm's issuer; the host part is whatever the client used to reach the emulator. */
export const realmPath = (realm: string) => `/auth/realms/${encodeURIComponent(realm)}`;

export function signAccessToken(key: SigningKey, request: TokenRequest): string {
  const claims: Omit<AccessClaims, 'iss'> = {
    sub: request.subject,
    tenant_id: request.tenantId,
    scope: request.scopes.join(' '),
    typ: 'Bearer',
    ...(request.clientId ? { azp: request.clientId } : {}),
    ...(request.username ? { preferred_username: request.username } : {}),
    ...(request.issuedAt ? { iat: Math.floor(request.issuedAt.getTime() / 1000) } : {}),
    ...(request.sessionId ? { sid: request.sessionId, session_state: request.sessionId } : {}),
    ...(request.nonce ? { nonce: request.nonce } : {}),
  };
  return jwt().sign(claims, key.privateKeyPem, {
    algorithm: 'RS256',
    keyid: key.kid,
    expiresIn: request.ttlSeconds,
    issuer: request.issuer,
  });
}

/**
 * The realms' other tokens (ID tokens, refresh tokens): signed like access tokens, told apart by `typ`; `iat` in
 * `claims` is the emulator clock and `exp` counts from it.
 */
export function signToken(
  key: SigningKey,
  claims: Record<string, unknown>,
  options: { issuer: string; ttlSeconds: number },
): string {
  return jwt().sign(claims, key.privateKeyPem, {
    algorithm: 'RS256',
    keyid: key.kid,
    expiresIn: options.ttlSeconds,
    issuer: options.issuer,
  });
}

/**
 * Verifies signature (RS256 only: `alg: none` and HMAC are refused) and expiry at `now` (the emulator's virtual
 * clock; default the machine's time); throws with the reason.
 */
export function verifyAccessToken(key: SigningKey, token: string, now?: Date): AccessClaims {
  const clockTimestamp = now ? Math.floor(now.getTime() / 1000) : undefined;
  return jwt().verify(token, key.publicKeyPem, { algorithms: ['RS256'], clockTimestamp }) as AccessClaims;
}

/** The scope of the emulator's own control plane (`/_emu/...`) when auth is on. */
export const EMULATOR_ADMIN_SCOPE = 'emulator:admin';
/** The issuer of admin tokens: no tenant's realm, so an admin token opens no service operation. */
export const ADMIN_ISSUER = 'urn:platform-emu:control-plane';

/** The emulator's admin token: signed with its key, no expiry (it lives as long as the key), scope `emulator:admin`. */
export function signAdminToken(key: SigningKey, issuedAt: Date): string {
  const claims = {
    sub: 'platform-emu-admin',
    scope: EMULATOR_ADMIN_SCOPE,
    typ: 'Bearer',
    iat: Math.floor(issuedAt.getTime() / 1000),
  };
  return jwt().sign(claims, key.privateKeyPem, { algorithm: 'RS256', keyid: key.kid, issuer: ADMIN_ISSUER });
}
