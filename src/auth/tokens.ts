import jwt from 'jsonwebtoken';
import type { SigningKey } from './keys.js';

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
  };
  return jwt.sign(claims, key.privateKeyPem, {
    algorithm: 'RS256',
    keyid: key.kid,
    expiresIn: request.ttlSeconds,
    issuer: request.issuer,
  });
}

/** Verifies signature (RS256 only: `alg: none` and HMAC are refused) and expiry; throws with the reason. */
export function verifyAccessToken(key: SigningKey, token: string): AccessClaims {
  return jwt.verify(token, key.publicKeyPem, { algorithms: ['RS256'] }) as AccessClaims;
}
