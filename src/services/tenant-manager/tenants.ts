import { randomBytes, randomUUID } from 'node:crypto';
import { conflict } from '../../server/errors.js';
import type { EmuContext } from '../../context.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type { realmClientRecord, realmUserRecord, tenantRecordSchema } from './schemas.js';
import { verifyPassword } from '../../auth/passwords.js';
import { expandScopes, platformScopes } from '../../auth/scopes.js';

export const TENANTS = collection<Tenant>('tenants').index('realm', (t) => t.realm_name);
export const REALM_CLIENTS = collection<RealmClient>('realm-clients');
export const REALM_USERS = collection<RealmUser>('realm-users');
export const SETTINGS = collection<{ value: string }>('settings');

/** Used when no fixture names a default tenant (`--fixtures none`). */
export const FALLBACK_TENANT = 'default';

/**
 * The record schemas name only the fields an import must have; the rest is what we write. Describing those fields
 * there would refuse imports it takes today, so the types add them.
 */
export type Tenant = FromSchema<typeof tenantRecordSchema> & {
  client_frontend_id: string;
  client_backend_id: string;
  client_backend_secret: string;
  issuer: string;
  status: string;
  created: string;
};

/** An OAuth client of a tenant's realm (`client_credentials` grant). */
export type RealmClient = FromSchema<typeof realmClientRecord>;

/**
 * A user of a tenant's realm (`password` grant); `passwordHash`: `src/auth/passwords.ts`, never the password itself.
 */
export type RealmUser = FromSchema<typeof realmUserRecord> & {
  /** The fixtures' platform administrator: also every `platform:` scope. */
  platformAdmin?: boolean;
};

export function findTenant(ctx: EmuContext, id: string): Tenant | undefined {
  return TENANTS.get(ctx, id);
}

export function findTenantByRealm(ctx: EmuContext, realm: string): Tenant | undefined {
  return TENANTS.lookup(ctx, 'realm', realm)[0];
}

export function listTenants(ctx: EmuContext): Tenant[] {
  return [...TENANTS.values(ctx)];
}

export function defaultTenantId(ctx: EmuContext): string {
  return SETTINGS.get(ctx, 'defaultTenant')?.value ?? FALLBACK_TENANT;
}

export function findRealmClient(ctx: EmuContext, tenantId: string, clientId: string): RealmClient | undefined {
  return REALM_CLIENTS.get(ctx, `${tenantId}/${clientId}`);
}

export function findRealmUser(ctx: EmuContext, tenantId: string, username: string): RealmUser | undefined {
  return REALM_USERS.get(ctx, `${tenantId}/${username}`);
}

/** The realm user, when the password is theirs (the `password` grant). */
export async function realmUserLogin(
  ctx: EmuContext,
  tenantId: string,
  username: string,
  password: string,
): Promise<RealmUser | undefined> {
  const user = findRealmUser(ctx, tenantId, username);
  // An unknown user's check costs what a known one's does.
  const valid = await verifyPassword(password, user?.passwordHash);
  return user && valid ? user : undefined;
}

/** A realm user's token scopes: its own, and the platform family for the platform administrator. */
export function realmUserScopes(ctx: EmuContext, user: RealmUser): string[] {
  const own = expandScopes(user.scopes, ctx.services);
  return user.platformAdmin ? [...new Set([...own, ...platformScopes(ctx.services)])] : own;
}

/** The fixtures' designated platform administrator (the first realm user marked `platformAdmin`). */
export function platformAdministrator(ctx: EmuContext): RealmUser | undefined {
  for (const user of REALM_USERS.values(ctx)) if (user.platformAdmin) return user;
  return undefined;
}

/** The scopes a token of this tenant gets by default: those of its first user, else every tenant scope. */
export function defaultScopes(ctx: EmuContext, tenantId: string): string[] {
  for (const user of REALM_USERS.values(ctx)) {
    if (user.tenantId === tenantId) return realmUserScopes(ctx, user);
  }
  return expandScopes('all', ctx.services);
}

/** What a new tenant record is made from: the create body (`TenantCreate`) or a fixture's fields. */
export interface TenantInput {
  id?: string;
  realm_name: string;
  [field: string]: unknown;
}

export function newTenantRecord(input: TenantInput, now: string): Tenant {
  const id = input.id ?? randomUUID();
  return {
    realm_template_version: 1,
    realm_scopes_version: 1,
    client_backend_version: 1,
    client_frontend_version: 1,
    roles_version: 1,
    resources_version: 1,
    idp_version: 1,
    user_roles: 1,
    idp_server: 1,
    package_type: 1,
    analytics_enabled: false,
    js_policies: [],
    subscription_type: 'PERMANENT',
    client_frontend_id: `${input.realm_name}-frontend`,
    client_backend_id: `${input.realm_name}-backend`,
    client_backend_secret: randomBytes(16).toString('hex'),
    status: 'AVAILABLE',
    created: now,
    ...input,
    issuer: `http://localhost:8080/auth/realms/${input.realm_name}`,
    id,
    tenantId: id,
  } as Tenant;
}

/** The tenant's backend client (`client_credentials`): the realm client its `client_backend_id`/`_secret` name. */
export function backendClient(tenant: Tenant): RealmClient {
  return {
    tenantId: tenant.id,
    clientId: tenant.client_backend_id,
    secret: tenant.client_backend_secret,
    scopes: 'all',
  };
}

/**
 * `POST /tenants` after its schema: a new realm in status CREATING, with its backend client; 409 when the id or
 * realm name is taken.
 */
export async function createTenant(ctx: EmuContext, input: TenantInput & { idp_version?: boolean }): Promise<Tenant> {
  if (findTenantByRealm(ctx, input.realm_name))
    throw conflict(`A tenant with realm_name ${input.realm_name} exists already.`);
  if (input.id !== undefined && findTenant(ctx, input.id))
    throw conflict(`A tenant with id ${input.id} exists already.`);
  const { idp_version, ...fields } = input;
  const tenant = newTenantRecord(
    { ...fields, idp_version: idp_version === true ? 1 : 0, status: 'CREATING' },
    ctx.clock.nowIso(),
  );
  const client = backendClient(tenant);
  await ctx.store.commit([
    TENANTS.putMutation(tenant.id, tenant),
    REALM_CLIENTS.putMutation(`${tenant.id}/${client.clientId}`, client),
  ]);
  return tenant;
}
