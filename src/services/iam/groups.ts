import { randomUUID } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { conflict } from '../../server/errors.js';
import { checkReferences, findGroup, GROUPS, krn, recordsOf, type IamGroup } from './records.js';
import type { GroupInput } from './schemas.js';
import { joinGroup } from './users.js';

export type { GroupInput };

/**
 * `POST /groups`: its `path` is the names from the top group down (`/engineering/firmware`); `users` become members.
 * 400 for an unknown parent, user or policy; 409 for a name its parent (or the top level) has already.
 */
export async function createGroup(ctx: EmuContext, tenantId: string, input: GroupInput): Promise<IamGroup> {
  checkReferences(ctx, tenantId, 'group', input.parentID === undefined ? [] : [input.parentID]);
  checkReferences(ctx, tenantId, 'policy', input.policyIDs);
  const siblings = recordsOf<IamGroup>(ctx, GROUPS, tenantId).filter((g) => g.parentID === input.parentID);
  if (siblings.some((g) => g.name === input.name))
    throw conflict(`A group named ${input.name} exists already${input.parentID ? ` in group ${input.parentID}` : ''}.`);
  const parent = input.parentID === undefined ? undefined : findGroup(ctx, tenantId, input.parentID);
  const path = `${parent?.path ?? ''}/${input.name}`;
  const now = ctx.clock.nowIso();
  const group: IamGroup = {
    tenantId,
    id: randomUUID(),
    tenantID: tenantId,
    name: input.name,
    displayName: input.displayName ?? input.name,
    ...(input.parentID === undefined ? {} : { parentID: input.parentID }),
    path,
    krn: krn(tenantId, 'group', parent?.path, input.name),
    policyIDs: [...new Set(input.policyIDs ?? [])],
    created: now,
    updated: now,
  };
  await ctx.store.commit([
    GROUPS.putMutation(group.id, group),
    ...joinGroup(ctx, tenantId, group.id, input.users ?? [], now),
  ]);
  return group;
}

export const listGroups = (ctx: EmuContext, tenantId: string): IamGroup[] => recordsOf<IamGroup>(ctx, GROUPS, tenantId);

/** The groups themselves and every group above them: a member of a group is a member of its parents. */
export function groupsWithAncestors(ctx: EmuContext, tenantId: string, groupIds: readonly string[]): IamGroup[] {
  const found = new Map<string, IamGroup>();
  for (const id of groupIds) {
    let group = findGroup(ctx, tenantId, id);
    while (group && !found.has(group.id)) {
      found.set(group.id, group);
      group = group.parentID ? findGroup(ctx, tenantId, group.parentID) : undefined;
    }
  }
  return [...found.values()];
}
