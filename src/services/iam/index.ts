// Identity and access manager (iam): users, groups and policies of a tenant.
import type { ServiceDescriptor } from '../../contract.js';
import { GROUPS, POLICIES, RESOURCE_POLICIES, USERS } from './records.js';
import { routes } from './routes.js';
import { groupRecord, policyRecord, resourcePolicyRecord, userRecord } from './schemas.js';

export const identityAndAccess: ServiceDescriptor = {
  prefix: 'iam',
  title: 'Identity and access manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    [USERS.name]: userRecord,
    [GROUPS.name]: groupRecord,
    [POLICIES.name]: policyRecord,
    [RESOURCE_POLICIES.name]: resourcePolicyRecord,
  },
  secretFields: { [USERS.name]: ['passwordHash'] },
};
