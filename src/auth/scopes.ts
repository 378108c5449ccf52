import type { ServiceDescriptor } from '../contract.js';
import { EMULATOR_ADMIN_SCOPE } from './tokens.js';

/** The spec writes the platform's own scope family as `<platform>:`; the emulator names it `platform:`. */
export const PLATFORM_SCOPE = 'platform';

/** The scopes a token can carry: every scope some operation requires, and the control plane's own. */
export function knownScopes(services: readonly ServiceDescriptor[]): string[] {
  return [...allScopes(services), EMULATOR_ADMIN_SCOPE].sort();
}

/**
 * Refuses a scope no operation knows (a typo would otherwise give a token that opens nothing), naming the known ones.
 */
export function checkKnownScopes(requested: readonly string[], services: readonly ServiceDescriptor[]): void {
  const known = knownScopes(services);
  const unknown = requested.filter((scope) => !known.includes(scope));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the scopes are: ${known.join(', ')}.`,
    );
  }
}

/** The scopes a route accepts: one, or either of two (`a | b`). */
export function acceptedScopes(scope: string): string[] {
  return scope.split('|').map((s) => s.trim().replace('<platform>', PLATFORM_SCOPE));
}

/** Scopes of the platform family (`platform:tenant:read`, ...): a platform administrator's, never a tenant's. */
export const isPlatformScope = (scope: string): boolean => scope.startsWith(`${PLATFORM_SCOPE}:`);

/** Every scope some operation of the emulator requires, both families. */
export function allScopes(services: readonly ServiceDescriptor[]): string[] {
  const scopes = new Set<string>();
  for (const service of services) {
    for (const route of service.routes) {
      if (route.scope && !route.customAuth) for (const s of acceptedScopes(route.scope)) scopes.add(s);
    }
  }
  return [...scopes].sort();
}

/** What `"scopes": "all"` in the fixtures means: every scope an operation requires, except the platform family. */
export function tenantScopes(services: readonly ServiceDescriptor[]): string[] {
  return allScopes(services).filter((s) => !isPlatformScope(s));
}

/** Every scope of the platform family: what the fixtures' platform administrator gets besides its own. */
export function platformScopes(services: readonly ServiceDescriptor[]): string[] {
  return allScopes(services).filter(isPlatformScope);
}

export function expandScopes(granted: string[] | 'all', services: readonly ServiceDescriptor[]): string[] {
  return granted === 'all' ? tenantScopes(services) : granted;
}

/** A scope pattern of a policy: a scope, or a prefix ending in `*` (`endpoint:*`; `*` alone matches every scope). */
export function scopeMatches(pattern: string, scope: string): boolean {
  return pattern.endsWith('*') ? scope.startsWith(pattern.slice(0, -1)) : pattern === scope;
}
