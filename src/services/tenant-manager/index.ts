import { tenantRecord, type ServiceDescriptor } from '../../server/contract.js';
import { tenantFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { TEMPLATE_KINDS } from './templates.js';
import { setupTenantIndexes } from './tenants.js';

export const tenantManager: ServiceDescriptor = {
  prefix: 'tenant-manager',
  title: 'Tenant manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    tenants: tenantRecord('id', 'realm_name'),
    'realm-clients': tenantRecord('clientId', 'secret'),
    'realm-users': tenantRecord('username', 'password'),
    settings: { type: 'object', required: ['value'] },
    ...Object.fromEntries(TEMPLATE_KINDS.map((k) => [k.collection, { type: 'object', required: ['id', 'template', 'description'] }])),
  },
  fixtures: [tenantFixtures],
  secretFields: { tenants: ['client_backend_secret'], 'realm-clients': ['secret'], 'realm-users': ['password'] },
  setup: setupTenantIndexes,
};
