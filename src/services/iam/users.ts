import { randomUUID } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { hashPassword } from '../../auth/passwords.js';
import { badRequest, conflict } from '../../server/errors.js';
import type { Mutation } from '../../store/index.js';
import { findRealmUser } from '../tenant-manager/tenants.js';
import type { UserInput } from './schemas.js';
import {
  checkReferences,
  requireUser,
  krn,
  recordsOf,
  RESOURCE_POLICIES,
  findUserByUsername,
  USERS,
  type IamUser,
} from './records.js';

export type { UserInput };

/** A username is one login of the tenant's realm: not another user's, not a fixture realm user's. */
function checkUnique(ctx: EmuContext, tenantId: string, input: UserInput): void {
  if (findUserByUsername(ctx, tenantId, input.username) || findRealmUser(ctx, tenantId, input.username)) {
    throw conflict(`A user with username ${input.username} exists already.`);
  }
  if (recordsOf<IamUser>(ctx, USERS, tenantId).some((u) => u.email === input.email))
    throw conflict(`A user with email ${input.email} exists already.`);
}

/** `POST /users`: 400 when the passwords differ or a group or policy is unknown; 409 for a taken username or email. */
export async function createUser(ctx: EmuContext, tenantId: string, input: UserInput): Promise<IamUser> {
  if (input.password !== input.confirmPassword) throw badRequest('password and confirmPassword differ.');
  checkUnique(ctx, tenantId, input);
  checkReferences(ctx, tenantId, 'group', input.groups);
  checkReferences(ctx, tenantId, 'policy', input.policyIDs);
  const { password, confirmPassword: _confirm, ...fields } = input;
  const passwordHash = await hashPassword(password);
  // The hash took a while: check again what another request may have taken meanwhile.
  checkUnique(ctx, tenantId, input);
  checkReferences(ctx, tenantId, 'group', input.groups);
  checkReferences(ctx, tenantId, 'policy', input.policyIDs);
  const now = ctx.clock.nowIso();
  const user: IamUser = {
    ...fields,
    tenantId,
    id: randomUUID(),
    idpID: randomUUID(),
    tenantID: tenantId,
    enabled: input.enabled ?? false,
    policyIDs: [...new Set(input.policyIDs ?? [])],
    groups: [...new Set(input.groups ?? [])],
    krn: krn(tenantId, 'user', input.path, input.username),
    created: now,
    updated: now,
    passwordHash,
  };
  await USERS.put(ctx, user.id, user);
  return user;
}

export interface UserFilter {
  email?: string;
  path?: string;
}

/** The tenant's users; `email` matches a part of the address (case-insensitive), `path` the whole path. */
export function listUsers(ctx: EmuContext, tenantId: string, filter: UserFilter = {}): IamUser[] {
  const email = filter.email?.toLowerCase();
  return recordsOf<IamUser>(ctx, USERS, tenantId).filter(
    (u) =>
      (email === undefined || u.email.toLowerCase().includes(email)) &&
      (filter.path === undefined || (u.path ?? '') === filter.path),
  );
}

/** `GET /users/paths`: the distinct paths users were created with, sorted. */
export function userPaths(ctx: EmuContext, tenantId: string): string[] {
  return [...new Set(recordsOf<IamUser>(ctx, USERS, tenantId).flatMap((u) => (u.path ? [u.path] : [])))].sort();
}

/** `POST /users/delete`: all of them or none (404 naming an unknown id); their resource policies go with them. */
export async function deleteUsers(ctx: EmuContext, tenantId: string, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)];
  for (const id of unique) requireUser(ctx, tenantId, id);
  const mutations: Mutation[] = unique.flatMap((id) => [
    USERS.deleteMutation(id),
    ...(RESOURCE_POLICIES.has(ctx, id) ? [RESOURCE_POLICIES.deleteMutation(id)] : []),
  ]);
  await ctx.store.commit(mutations);
}

/** `POST /users/{userID}/policies/attach|detach`: attaching twice or detaching what is not attached changes nothing. */
export async function changeUserPolicies(
  ctx: EmuContext,
  tenantId: string,
  userId: string,
  policyIds: readonly string[],
  attach: boolean,
): Promise<void> {
  const user = requireUser(ctx, tenantId, userId);
  if (attach) checkReferences(ctx, tenantId, 'policy', policyIds);
  const policyIDs = attach
    ? [...new Set([...user.policyIDs, ...policyIds])]
    : user.policyIDs.filter((id) => !policyIds.includes(id));
  await USERS.put(ctx, user.id, { ...user, policyIDs, updated: ctx.clock.nowIso() });
}

/** Adds a group to users' memberships (a group created with `users`), as mutations of one commit. */
export function joinGroup(
  ctx: EmuContext,
  tenantId: string,
  groupId: string,
  userIds: readonly string[],
  now: string,
): Mutation[] {
  checkReferences(ctx, tenantId, 'user', userIds);
  return [...new Set(userIds)].map((id) => {
    const user = requireUser(ctx, tenantId, id);
    return USERS.putMutation(id, { ...user, groups: [...new Set([...user.groups, groupId])], updated: now });
  });
}
