import type { EmuContext } from '../context.js';
import { DEFAULT_TOKEN_TTL, realmPath, signAccessToken } from '../auth/tokens.js';
import {
  defaultScopes,
  findTenant,
  listTenants,
  platformAdministrator,
  realmUserScopes,
  findTenantByRealm,
  type Tenant,
} from '../services/tenant-manager/tenants.js';

export interface TestTokenRequest {
  /** Tenant id or realm name; default: the fixtures' default tenant. */
  tenant?: string;
  /** Default: every scope of the tenant's first fixture user. */
  scopes?: string[];
  /** A token of the fixtures' platform administrator (its tenant, its scopes with the `platform:` family). */
  platform?: boolean;
  ttlSeconds?: number;
  /** `http://host:port` the token's issuer names; any host works against the emulator, only the path is checked. */
  baseUrl: string;
}

function tenantOf(ctx: EmuContext, wanted: string): Tenant {
  const tenant = findTenant(ctx, wanted) ?? findTenantByRealm(ctx, wanted);
  if (tenant) return tenant;
  const known = listTenants(ctx).map((t) => t.id);
  throw new Error(
    `There is no tenant ` +
      `${wanted}${
        known.length ? `; tenants: ${known.join(', ')}` : ' (the state has no tenants: were the fixtures loaded?)'
      }.`,
  );
}

/** The platform administrator's tenant and scopes. */
function platformGrant(
  ctx: EmuContext,
  request: TestTokenRequest,
): { tenant: Tenant; scopes: string[]; subject: string } {
  const admin = platformAdministrator(ctx);
  if (!admin) throw new Error('The fixtures name no platform administrator (a realm user with "platformAdmin": true).');
  if (request.tenant !== undefined)
    throw new Error(
      `A platform token belongs to the platform administrator's tenant ${admin.tenantId}; do not name a tenant.`,
    );
  return { tenant: tenantOf(ctx, admin.tenantId), scopes: realmUserScopes(ctx, admin), subject: admin.username };
}

/** The named (or default) tenant and its first user's scopes. */
function tenantGrant(
  ctx: EmuContext,
  request: TestTokenRequest,
): { tenant: Tenant; scopes: string[]; subject: string } {
  const tenant = tenantOf(ctx, request.tenant ?? ctx.defaultTenantId());
  return { tenant, scopes: defaultScopes(ctx, tenant.id), subject: 'platform-emu-cli' };
}

/** What `platform-emu token` prints: a token signed like the realm's own, without a password round trip. */
export function issueTestToken(ctx: EmuContext, request: TestTokenRequest) {
  const grant = request.platform ? platformGrant(ctx, request) : tenantGrant(ctx, request);
  const { tenant } = grant;
  const scopes = request.scopes && request.scopes.length > 0 ? request.scopes : grant.scopes;
  const ttlSeconds = request.ttlSeconds ?? DEFAULT_TOKEN_TTL;
  const issuer = `${request.baseUrl.replace(/\/$/, '')}${realmPath(tenant.realm_name)}`;
  const token = signAccessToken(ctx.keys, {
    issuer,
    tenantId: tenant.id,
    subject: grant.subject,
    scopes,
    ttlSeconds,
    issuedAt: ctx.clock.now(),
  });
  return { token, tenantId: tenant.id, realm: tenant.realm_name, issuer, scopes, expiresIn: ttlSeconds };
}
