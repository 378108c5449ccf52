import type { ServiceDescriptor } from '../../contract.js';
import { lorawanControlRouter } from './control.js';
import { integrationFixtures } from './fixtures.js';
import { INTEGRATIONS, setupIntegrationIndexes } from './integrations.js';
import { routes } from './routes.js';
import { integrationRecord } from './schemas.js';

export const lorawanConnector: ServiceDescriptor = {
  prefix: 'ttnc',
  title: 'LoRaWAN connector',
  serviceGroup: 'device',
  routes,
  collections: {
    [INTEGRATIONS]: integrationRecord,
  },
  secretFields: { [INTEGRATIONS]: ['lnsApiKeyId'] },
  fixtures: [integrationFixtures],
  seedsAfter: ['app-manager', 'epr'],
  controlPlane: lorawanControlRouter,
  setup: setupIntegrationIndexes,
};
