// LoRaWAN connector (ttnc): integrations with LoRaWAN network servers.
import type { ServiceDescriptor } from '../../contract.js';
import { lorawanControlRouter } from './control.js';
import { integrationFixtures } from './fixtures.js';
import { INTEGRATIONS } from './integrations.js';
import { routes } from './routes.js';
import { integrationRecord } from './schemas.js';

export const lorawanConnector: ServiceDescriptor = {
  prefix: 'ttnc',
  title: 'LoRaWAN connector',
  serviceGroup: 'device',
  routes,
  collections: {
    [INTEGRATIONS.name]: integrationRecord,
  },
  secretFields: { [INTEGRATIONS.name]: ['lnsApiKeyId'] },
  fixtures: [integrationFixtures],
  seedsAfter: ['app-manager', 'epr'],
  controlPlane: lorawanControlRouter,
};
