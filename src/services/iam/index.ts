// Identity and access manager (iam): users, groups and policies of a tenant.
import { withPasswordHash } from '../../auth/passwords.js';
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { GROUPS, POLICIES, RESOURCE_POLICIES, USERS } from './records.js';
import { routes } from './routes.js';

export const identityAndAccess: ServiceDescriptor = {
  prefix: 'iam',
  title: 'Identity and access manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    [USERS.name]: withPasswordHash(tenantRecord(['id', 'username', 'email', 'krn', 'passwordHash', 'created', 'updated'])),
    [GROUPS.name]: tenantRecord(['id', 'name', 'path', 'krn', 'created', 'updated']),
    [POLICIES.name]: tenantRecord(['id', 'name', 'krn', 'type', 'version']),
    [RESOURCE_POLICIES.name]: tenantRecord([]),
  },
};
