import type { ServiceDescriptor } from '../server/contract.js';
import { EMULATOR_ADMIN_SCOPE } from './tokens.js';

/** The spec writes the platform's own scope family as `<platform>:`; the emulator names it `platform:`. */
export const PLATFORM_SCOPE = 'platform';

/** The scopes a token can carry: every scope some operation requires, and the control plane's own. */
export function knownScopes(services: readonly ServiceDescriptor[]): string[] {
  return [...allScopes(services), EMULATOR_ADMIN_SCOPE].sort();
}

/** Refuses a scope no operation knows (a typo would otherwise give a token that opens nothing), naming the known ones. */
export function checkKnownScopes(requested: readonly string[], services: readonly ServiceDescriptor[]): void {
  const known = knownScopes(services);
  const unknown = requested.filter((scope) => !known.includes(scope));
  if (unknown.length > 0) {
    throw new Error(`Unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the scopes are: ${known.join(', ')}.`);
  }
}

/** The scopes a route accepts: one, or either of two (`a | b`). */
export function acceptedScopes(scope: string): string[] {
  return scope.split('|').map((s) => s.trim().replace('<platform>', PLATFORM_SCOPE));
}

/** Every scope some operation of the emulator requires: what `"scopes": "all"` in the fixtures means. */
export function allScopes(services: readonly ServiceDescriptor[]): string[] {
  const scopes = new Set<string>();
  for (const service of services) {
    for (const route of service.routes) {
      if (route.scope && !route.customAuth) for (const s of acceptedScopes(route.scope)) scopes.add(s);
    }
  }
  return [...scopes].sort();
}

export function expandScopes(granted: string[] | 'all', services: readonly ServiceDescriptor[]): string[] {
  return granted === 'all' ? allScopes(services) : granted;
}
