import { TENANTS } from './tenants.js';

type Collections = Record<string, Record<string, Record<string, unknown>>>;

/**
 * What record schemas cannot say about an imported state's tenants: a realm name is one tenant's (a second one would
 * shadow the first at sign-in), and every record's `tenantId` names a tenant of the document (an orphan would answer
 * 404 to everyone).
 */
export function checkTenantState(collections: Collections): string | undefined {
  const tenants = collections[TENANTS.name] ?? {};
  const realms = new Map<unknown, string>();
  for (const [id, tenant] of Object.entries(tenants)) {
    const owner = realms.get(tenant.realm_name);
    if (owner !== undefined) {
      return (
        `collections.${TENANTS.name}["${id}"]: realm_name "${String(tenant.realm_name)}" is already the realm ` +
        `of tenant ${owner}`
      );
    }
    realms.set(tenant.realm_name, id);
  }
  for (const [name, records] of Object.entries(collections)) {
    for (const [id, record] of Object.entries(records)) {
      const tenantId = record.tenantId;
      if (typeof tenantId === 'string' && !Object.hasOwn(tenants, tenantId)) {
        return (
          `collections.${name}["${id}"]: tenantId "${tenantId}" is not a tenant of the document (its tenants: ` +
          `${Object.keys(tenants).join(', ') || 'none'})`
        );
      }
    }
  }
  return undefined;
}
