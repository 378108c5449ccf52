import type { EmuContext } from '../../context.js';
import { DEFAULT_TOKEN_TTL, realmPath, signAccessToken } from '../../auth/tokens.js';
import { defaultScopes, getTenant, listTenants, tenantByRealm } from '../tenant-manager/tenants.js';

export interface TestTokenRequest {
  /** Tenant id or realm name; default: the fixtures' default tenant. */
  tenant?: string;
  /** Default: every scope of the tenant's first fixture user. */
  scopes?: string[];
  ttlSeconds?: number;
  /** `http://host:port` the token's issuer names; any host works against the emulator, only the path is checked. */
  baseUrl: string;
}

/** What `platform-emu token` prints: a token signed like the realm's own, without a password round trip. */
export function issueTestToken(ctx: EmuContext, request: TestTokenRequest) {
  const wanted = request.tenant ?? ctx.defaultTenantId();
  const tenant = getTenant(ctx, wanted) ?? tenantByRealm(ctx, wanted);
  if (!tenant) {
    const known = listTenants(ctx).map((t) => t.id);
    throw new Error(`There is no tenant ${wanted}${known.length ? `; tenants: ${known.join(', ')}` : ' (the state has no tenants: were the fixtures loaded?)'}.`);
  }
  const scopes = request.scopes && request.scopes.length > 0 ? request.scopes : defaultScopes(ctx, tenant.id);
  const ttlSeconds = request.ttlSeconds ?? DEFAULT_TOKEN_TTL;
  const issuer = `${request.baseUrl.replace(/\/$/, '')}${realmPath(tenant.realm_name)}`;
  const token = signAccessToken(ctx.keys, { issuer, tenantId: tenant.id, subject: `platform-emu-cli`, scopes, ttlSeconds, issuedAt: ctx.clock.now() });
  return { token, tenantId: tenant.id, realm: tenant.realm_name, issuer, scopes, expiresIn: ttlSeconds };
}
