import type { EmuContext } from '../../context.js';
import { verifyPassword } from '../../auth/passwords.js';
import { userScopes } from './policies.js';
import { findUserByUsername, USERS } from './records.js';

export interface IamLogin {
  id: string;
  username: string;
  scopes: string[];
}

/**
 * The `password` grant of the tenant's realm for a user of the identity and access manager: the user and the scopes
 * its policies allow; `disabled` for the right password of a user created with `enabled: false`; undefined otherwise.
 */
export async function iamLogin(
  ctx: EmuContext,
  tenantId: string,
  username: string,
  password: string,
): Promise<IamLogin | 'disabled' | undefined> {
  const found = findUserByUsername(ctx, tenantId, username);
  // An unknown user's check costs what a known one's does.
  const valid = await verifyPassword(password, found?.passwordHash);
  if (!found || !valid) return undefined;
  // Read again after the hash: the user may have been deleted meanwhile.
  const user = USERS.get(ctx, found.id);
  if (!user) return undefined;
  if (!user.enabled) return 'disabled';
  return { id: user.id, username: user.username, scopes: userScopes(ctx, user) };
}
