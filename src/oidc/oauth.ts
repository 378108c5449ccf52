import type { Request } from 'express';
import { iamLogin } from '../services/iam/login.js';
import { realmUserLogin, realmUserScopes, findTenantByRealm, type Tenant } from '../services/tenant-manager/tenants.js';

/** The size limit of an OAuth form (the token endpoint, the login form). */
export const OAUTH_BODY_LIMIT = '64kb';

export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

export function realmOf(req: Request): Tenant {
  const tenant = findTenantByRealm(req.ctx, String(req.params.realm));
  if (!tenant)
    throw new OAuthError(
      404,
      'realm_not_found',
      `There is no realm ${req.params.realm}; the fixture tenants' realm_name values are the realms.`,
    );
  return tenant;
}

export interface Grantee {
  subject: string;
  scopes: string[];
  username?: string;
}

/** A user of the realm: a fixture realm user, else an identity and access manager user of the tenant. */
export async function passwordGrantee(req: Request, tenant: Tenant): Promise<Grantee> {
  const username = String(req.body?.username ?? '');
  const password = String(req.body?.password ?? '');
  const realmUser = await realmUserLogin(req.ctx, tenant.id, username, password);
  if (realmUser)
    return { subject: realmUser.username, username: realmUser.username, scopes: realmUserScopes(req.ctx, realmUser) };
  const iamUser = await iamLogin(req.ctx, tenant.id, username, password);
  if (iamUser === 'disabled')
    throw new OAuthError(400, 'invalid_grant', 'Account disabled: the user was created with enabled false.');
  if (!iamUser) throw new OAuthError(401, 'invalid_grant', 'Invalid user credentials.');
  return { subject: iamUser.id, username: iamUser.username, scopes: iamUser.scopes };
}
