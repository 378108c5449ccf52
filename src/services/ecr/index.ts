import type { ServiceDescriptor } from '../../contract.js';
import { configurationFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { setupConfigIndexes } from './records.js';
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
  setup: setupConfigIndexes,
};
