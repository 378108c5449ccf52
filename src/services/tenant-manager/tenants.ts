import { randomBytes, randomUUID } from 'node:crypto';
import { conflict } from '../../server/errors.js';
import type { EmuContext } from '../../context.js';
import type { FromSchema } from '../../contract.js';
import type { realmClientRecord, realmUserRecord, tenantRecordSchema } from './schemas.js';
import { verifyPassword } from '../../auth/passwords.js';
import { expandScopes, platformScopes } from '../../auth/scopes.js';

export const TENANTS = 'tenants';
export const REALM_CLIENTS = 'realm-clients';
export const REALM_USERS = 'realm-users';
export const SETTINGS = 'settings';

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

/** A user of a tenant's realm (`password` grant); `passwordHash`: `src/auth/passwords.ts`, never the password itself. */
export type RealmUser = FromSchema<typeof realmUserRecord> & {
  /** The fixtures' platform administrator: also every `platform:` scope. */
  platformAdmin?: boolean;
};

export function setupTenantIndexes(ctx: EmuContext): void {
  ctx.store.defineIndex(TENANTS, 'realm', (t) => t.realm_name as string);
}

export function getTenant(ctx: EmuContext, id: string): Tenant | undefined {
  return ctx.store.get<Tenant>(TENANTS, id);
}

export function tenantByRealm(ctx: EmuContext, realm: string): Tenant | undefined {
  return ctx.store.lookup<Tenant>(TENANTS, 'realm', realm)[0];
}

export function listTenants(ctx: EmuContext): Tenant[] {
  return [...ctx.store.values<Tenant>(TENANTS)];
}

export function defaultTenantId(ctx: EmuContext): string {
  return ctx.store.get<{ value: string }>(SETTINGS, 'defaultTenant')?.value ?? FALLBACK_TENANT;
}

export function realmClient(ctx: EmuContext, tenantId: string, clientId: string): RealmClient | undefined {
  return ctx.store.get<RealmClient>(REALM_CLIENTS, `${tenantId}/${clientId}`);
}

export function realmUser(ctx: EmuContext, tenantId: string, username: string): RealmUser | undefined {
  return ctx.store.get<RealmUser>(REALM_USERS, `${tenantId}/${username}`);
}

/** The realm user, when the password is theirs (the `password` grant). */
export async function realmUserLogin(ctx: EmuContext, tenantId: string, username: string, password: string): Promise<RealmUser | undefined> {
  const user = realmUser(ctx, tenantId, username);
  return user && (await verifyPassword(password, user.passwordHash)) ? user : undefined;
}

/** A realm user's token scopes: its own, and the platform family for the platform administrator. */
export function realmUserScopes(ctx: EmuContext, user: RealmUser): string[] {
  const own = expandScopes(user.scopes, ctx.services);
  return user.platformAdmin ? [...new Set([...own, ...platformScopes(ctx.services)])] : own;
}

/** The fixtures' designated platform administrator (the first realm user marked `platformAdmin`). */
export function platformAdministrator(ctx: EmuContext): RealmUser | undefined {
  for (const user of ctx.store.values<RealmUser>(REALM_USERS)) if (user.platformAdmin) return user;
  return undefined;
}

/** The scopes a token of this tenant gets by default: those of its first user, else every tenant scope. */
export function defaultScopes(ctx: EmuContext, tenantId: string): string[] {
  for (const user of ctx.store.values<RealmUser>(REALM_USERS)) {
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
  return { tenantId: tenant.id, clientId: tenant.client_backend_id, secret: tenant.client_backend_secret, scopes: 'all' };
}

/**
 * `POST /tenants` after its schema: a new realm in status CREATING, with its backend client; 409 when the id or
 * realm name is taken.
 */
export async function createTenant(ctx: EmuContext, input: TenantInput & { idp_version?: boolean }): Promise<Tenant> {
  if (tenantByRealm(ctx, input.realm_name)) throw conflict(`A tenant with realm_name ${input.realm_name} exists already.`);
  if (input.id !== undefined && getTenant(ctx, input.id)) throw conflict(`A tenant with id ${input.id} exists already.`);
  const { idp_version, ...fields } = input;
  const tenant = newTenantRecord({ ...fields, idp_version: idp_version === true ? 1 : 0, status: 'CREATING' }, ctx.clock.nowIso());
  const client = backendClient(tenant);
  await ctx.store.commit([
    { op: 'put', c: TENANTS, id: tenant.id, v: tenant },
    { op: 'put', c: REALM_CLIENTS, id: `${tenant.id}/${client.clientId}`, v: client },
  ]);
  return tenant;
}
