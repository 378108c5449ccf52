// Endpoint configuration registry (ecr): configurations of application versions and endpoints.
import type { ServiceDescriptor } from '../../contract.js';
import { configurationFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { appliedConfigRecord, configRecord } from './schemas.js';
import { ecrVersionSettingsSchema } from './schema-check.js';

import { compatRevisions, defaultCompatRevision } from './compat.js';

export const endpointConfiguration: ServiceDescriptor = {
  prefix: 'ecr',
  title: 'Endpoint configuration registry',
  serviceGroup: 'device',
  routes,
  collections: {
    'endpoint-configs': configRecord,
    'default-configs': configRecord,
    'applied-configs': appliedConfigRecord,
  },
  fixtures: [configurationFixtures],
  seedsAfter: ['epr', 'tekton'],
  appVersionConfigurationSchema: ecrVersionSettingsSchema,
  compat: { revisions: [...compatRevisions], default: defaultCompatRevision },
};
