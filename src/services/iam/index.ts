import type { ServiceDescriptor } from '../../contract.js';
import { GROUPS, POLICIES, RESOURCE_POLICIES, setupIamIndexes, USERS } from './records.js';
import { routes } from './routes.js';
import { groupRecord, policyRecord, resourcePolicyRecord, userRecord } from './schemas.js';

export const identityAndAccess: ServiceDescriptor = {
  prefix: 'iam',
  title: 'Identity and access manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    [USERS]: userRecord,
    [GROUPS]: groupRecord,
    [POLICIES]: policyRecord,
    [RESOURCE_POLICIES]: resourcePolicyRecord,
  },
  setup: setupIamIndexes,
};
