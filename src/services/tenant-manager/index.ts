// Tenant manager (tenant-manager): tenants, their realms and clients.
import { withPasswordHash } from '../../auth/passwords.js';
import { tenantRecord, type JsonSchema, type ServiceDescriptor } from '../../contract.js';
import { tenantFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { REALM_NAME_PATTERN, tenantIdSchema } from './schemas.js';
import { TEMPLATE_KINDS } from './templates.js';

/** `all`, or a list of scopes; a record without it has every scope. */
const scopes: JsonSchema = { oneOf: [{ const: 'all' }, { type: 'array', items: { type: 'string' } }], default: 'all' };

export const tenantManager: ServiceDescriptor = {
  prefix: 'tenant-manager',
  title: 'Tenant manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    tenants: tenantRecord(['id', 'realm_name'], { id: tenantIdSchema, realm_name: { type: 'string', pattern: REALM_NAME_PATTERN } }),
    'realm-clients': tenantRecord(['clientId', 'secret'], { scopes }),
    'realm-users': withPasswordHash(tenantRecord(['username', 'passwordHash'], { scopes })),
    settings: { type: 'object', required: ['value'] },
    ...Object.fromEntries(
      TEMPLATE_KINDS.map((k) => [
        k.collection.name,
        {
          type: 'object',
          required: ['id', 'template', 'description'],
          properties: { id: { type: 'integer', minimum: 1 }, template: { type: 'object' }, description: { type: 'string' } },
        },
      ]),
    ),
  },
  fixtures: [tenantFixtures],
  secretFields: { tenants: ['client_backend_secret'], 'realm-clients': ['secret'], 'realm-users': ['password'] },
};
