// Tenant manager (tenant-manager): tenants, their realms and clients.
import type { ServiceDescriptor } from '../../contract.js';
import { tenantFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { checkTenantState } from './state-checks.js';
import { realmClientRecord, realmUserRecord, templateRecord, tenantRecordSchema } from './schemas.js';
import { TEMPLATE_KINDS } from './templates.js';

export const tenantManager: ServiceDescriptor = {
  prefix: 'tenant-manager',
  title: 'Tenant manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    tenants: tenantRecordSchema,
    'realm-clients': realmClientRecord,
    'realm-users': realmUserRecord,
    settings: { type: 'object', required: ['value'] },
    ...Object.fromEntries(TEMPLATE_KINDS.map((k) => [k.collection.name, templateRecord])),
  },
  fixtures: [tenantFixtures],
  checkState: checkTenantState,
  secretFields: {
    tenants: ['client_backend_secret'],
    'realm-clients': ['secret'],
    'realm-users': ['password', 'passwordHash'],
  },
  // A tenant's backend client is one of its realm's clients: one secret for both.
  secretTwins: {
    tenants: {
      client_backend_secret: (id, tenant) =>
        typeof tenant.client_backend_id === 'string'
          ? { collection: 'realm-clients', id: `${id}/${tenant.client_backend_id}`, field: 'secret' }
          : undefined,
    },
  },
};
