import type { EmuContext } from '../../context.js';
import { badRequest, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection, type Collection, type StoredRecord } from '../../store/index.js';
import type {
  groupRecord,
  policyRecord,
  PolicyInput,
  resourcePolicyRecord,
  ResourcePolicyInput,
  userRecord,
} from './schemas.js';

/** The identity and access manager's collections and the lookups its domain files share. */

export const USERS = collection<IamUser>('iam-users').index('username', (u) => usernameKey(u.tenantId, u.username));
export const GROUPS = collection<IamGroup>('iam-groups');
export const POLICIES = collection<IamPolicy>('iam-policies');
export const RESOURCE_POLICIES = collection<StoredResourcePolicy>('iam-resource-policies');

/**
 * A user's resource policy as stored: who may act on the user. It does not change the user's own token. The record
 * schema names only `tenantId`; the rest is what we write from a checked body.
 */
export type StoredResourcePolicy = FromSchema<typeof resourcePolicyRecord> & {
  version: number;
  statements: ResourcePolicyInput['statements'];
};

/*
 * The record schemas name only the string fields an import must have; the rest is what we write from a checked body.
 * Describing those fields there would refuse imports it takes today, so the types add them.
 */

/** `passwordHash`: `src/auth/passwords.ts`, never the password itself. */
export type IamUser = FromSchema<typeof userRecord> & {
  idpID: string;
  tenantID: string;
  enabled: boolean;
  path?: string;
  firstName?: string;
  lastName?: string;
  policyIDs: string[];
  /** Ids of the groups the user is a member of. */
  groups: string[];
  sendVerifyEmail?: boolean;
  redirectUri?: string;
};

export type IamGroup = FromSchema<typeof groupRecord> & {
  tenantID: string;
  displayName: string;
  parentID?: string;
  policyIDs: string[];
};

/** A statement of `POST /policies`, its `resources` filled in (default every resource, `*`). */
export type Statement = PolicyInput['statements'][number] & { resources: string[] };

export type IamPolicy = FromSchema<typeof policyRecord> & {
  description: string;
  type: 'identity' | 'resource';
  origin: string;
  statements: Statement[];
};

const usernameKey = (tenantId: string, username: string) => `${tenantId}\u0000${username}`;

export function findUserByUsername(ctx: EmuContext, tenantId: string, username: string): IamUser | undefined {
  return USERS.lookup(ctx, 'username', usernameKey(tenantId, username))[0];
}

/** The tenant's records of a collection; another tenant's are never seen. */
export function recordsOf<T extends StoredRecord>(
  ctx: EmuContext,
  collection: Collection<T, string>,
  tenantId: string,
): T[] {
  return [...collection.values(ctx)].filter((r) => r.tenantId === tenantId);
}

function owned<T extends StoredRecord>(
  ctx: EmuContext,
  collection: Collection<T, string>,
  tenantId: string,
  id: string,
): T | undefined {
  const record = collection.get(ctx, id);
  return record?.tenantId === tenantId ? record : undefined;
}

export function requireUser(ctx: EmuContext, tenantId: string, id: string): IamUser {
  const user = owned<IamUser>(ctx, USERS, tenantId, id);
  if (!user) throw notFound(`There is no user ${id}.`);
  return user;
}

export const findGroup = (ctx: EmuContext, tenantId: string, id: string) => owned<IamGroup>(ctx, GROUPS, tenantId, id);
export const findPolicy = (ctx: EmuContext, tenantId: string, id: string) =>
  owned<IamPolicy>(ctx, POLICIES, tenantId, id);

/** 400 naming the first id in a request body that is not one of the tenant's records of that kind. */
export function checkReferences(
  ctx: EmuContext,
  tenantId: string,
  kind: 'group' | 'policy' | 'user',
  ids: readonly string[] = [],
): void {
  const find = {
    group: findGroup,
    policy: findPolicy,
    user: (c: EmuContext, t: string, id: string) => owned(c, USERS, t, id),
  }[kind];
  const missing = ids.find((id) => !find(ctx, tenantId, id));
  if (missing !== undefined) throw badRequest(`There is no ${kind} ${missing}.`);
}

/** `krn:iam:<tenant_id>::<kind>/<path>/<name>`; an empty path leaves no empty segment. */
export function krn(tenantId: string, kind: string, path: string | undefined, name: string): string {
  const segments = [kind, ...(path ?? '').split('/').filter(Boolean), name];
  return `krn:iam:${tenantId}::${segments.join('/')}`;
}
