import { randomUUID } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { scopeMatches, tenantScopes } from '../../auth/scopes.js';
import { conflict, notFound } from '../../server/errors.js';
import { groupsWithAncestors } from './groups.js';
import type { PolicyInput } from './schemas.js';
import {
  findPolicy,
  requireUser,
  krn,
  POLICIES,
  recordsOf,
  RESOURCE_POLICIES,
  type IamPolicy,
  type IamUser,
  type Statement,
  type StoredResourcePolicy,
} from './records.js';

export type { PolicyInput };

/** `POST /policies` (an emulator addition): an identity policy; `resources` default to every resource (`*`). */
export async function createPolicy(ctx: EmuContext, tenantId: string, input: PolicyInput): Promise<IamPolicy> {
  if (recordsOf<IamPolicy>(ctx, POLICIES, tenantId).some((p) => p.name === input.name))
    throw conflict(`A policy named ${input.name} exists already.`);
  const policy: IamPolicy = {
    tenantId,
    id: randomUUID(),
    krn: krn(tenantId, 'policy', undefined, input.name),
    name: input.name,
    description: input.description ?? '',
    type: 'identity',
    origin: 'tenant',
    version: '1',
    statements: input.statements.map((s) => ({ ...s, resources: s.resources ?? ['*'] })),
  };
  await POLICIES.put(ctx, policy.id, policy);
  return policy;
}

export const listPolicies = (ctx: EmuContext, tenantId: string): IamPolicy[] =>
  recordsOf<IamPolicy>(ctx, POLICIES, tenantId);

export function requirePolicy(ctx: EmuContext, tenantId: string, id: string): IamPolicy {
  const policy = findPolicy(ctx, tenantId, id);
  if (!policy) throw notFound(`There is no policy ${id}.`);
  return policy;
}

/** `GET /users/{userID}/policy`: the user's resource policy; one without statements until a `PUT`. */
export function userResourcePolicy(ctx: EmuContext, tenantId: string, userId: string): Omit<IamPolicy, 'tenantId'> {
  const user = requireUser(ctx, tenantId, userId);
  const stored = RESOURCE_POLICIES.get(ctx, user.id);
  return {
    id: `resource-policy-${user.id}`,
    krn: krn(tenantId, 'policy', 'user', user.id),
    // A policy name is `^[a-zA-Z0-9_-]*$` (spec 3); a username may also hold `@` and `.`.
    name: `${user.username.replace(/[^a-zA-Z0-9_-]/g, '_')}-resource-policy`,
    description: `Resource policy of user ${user.username}`,
    type: 'resource',
    origin: 'user',
    version: String(stored?.version ?? 0),
    statements: (stored?.statements ?? []).map((s) => ({ ...s, resources: [user.krn] })),
  };
}

/** `PUT /users/{userID}/policy`: replaces the statements; the version counts the replacements. */
export async function putUserResourcePolicy(
  ctx: EmuContext,
  tenantId: string,
  userId: string,
  statements: StoredResourcePolicy['statements'],
): Promise<void> {
  const user = requireUser(ctx, tenantId, userId);
  const version = (RESOURCE_POLICIES.get(ctx, user.id)?.version ?? 0) + 1;
  await RESOURCE_POLICIES.put(ctx, user.id, { tenantId, version, statements });
}

/**
 * The scopes of a user's token: the scopes an `allow` statement names (a scope, or a prefix ending in `*`) in the
 * policies attached to the user and to its groups (and their parent groups), minus those a `deny` statement
 * names. Only tenant scopes: the `platform:` family is never granted through a tenant's policies.
 */
export function userScopes(ctx: EmuContext, user: IamUser): string[] {
  const groups = groupsWithAncestors(ctx, user.tenantId, user.groups);
  const policyIds = new Set([...user.policyIDs, ...groups.flatMap((g) => g.policyIDs)]);
  const statements = [...policyIds].flatMap((id) => findPolicy(ctx, user.tenantId, id)?.statements ?? []);
  const named = (effect: Statement['effect']) =>
    statements.filter((s) => s.effect === effect).flatMap((s) => s.actions);
  const allowed = named('allow');
  const denied = named('deny');
  return tenantScopes(ctx.services).filter(
    (scope) => allowed.some((p) => scopeMatches(p, scope)) && !denied.some((p) => scopeMatches(p, scope)),
  );
}
