import { OAuthError } from './oauth.js';

/**
 * OpenID Connect's own scopes: they ask for an `id_token`, profile claims and an offline refresh token, and never
 * narrow the user's platform scopes (keycloak-js asks for `openid` only, and its user must keep every scope).
 */
export const OIDC_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'offline_access']);

export interface GrantedScopes {
  /** The platform scopes the token carries (`endpoint:read`, ...). */
  platform: string[];
  /** The OpenID Connect scopes asked for. */
  oidc: string[];
}

/**
 * The platform scopes asked for among those granted (all of them when none is named); asking for one that is not
 * granted is an error. The OIDC scopes are kept apart.
 */
export function grantScopes(granted: readonly string[], requested: unknown): GrantedScopes {
  const asked = typeof requested === 'string' ? [...new Set(requested.split(' ').filter(Boolean))].slice(0, 1000) : [];
  const oidc = asked.filter((s) => OIDC_SCOPES.has(s));
  const wanted = asked.filter((s) => !OIDC_SCOPES.has(s));
  if (wanted.length === 0) return { platform: [...granted], oidc };
  const missing = wanted.filter((s) => !granted.includes(s));
  if (missing.length > 0)
    throw new OAuthError(400, 'invalid_scope', `Not granted to this client or user: ${missing.join(' ')}.`);
  return { platform: wanted, oidc };
}

/** The `scope` of a token and of the token response: the platform scopes, then the OIDC ones. */
export const scopeText = (scopes: GrantedScopes): string => [...scopes.platform, ...scopes.oidc].join(' ');
