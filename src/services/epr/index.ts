import { tenantRecord, type ServiceDescriptor } from '../../server/contract.js';
import { setupEndpointIndexes } from './endpoints.js';
import { setupFilterIndexes } from './filters.js';
import { endpointFixtures, filterFixtures } from './fixtures.js';
import { routes } from './routes.js';

export const endpointRegister: ServiceDescriptor = {
  prefix: 'epr',
  title: 'Endpoint register',
  serviceGroup: 'device',
  routes,
  collections: {
    endpoints: tenantRecord('endpointId', 'appName', 'token', 'tokenStatus', 'createdDate', 'updatedDate'),
    'endpoint-filters': tenantRecord('applicationName', 'filterId', 'status'),
  },
  fixtures: [endpointFixtures, filterFixtures],
  seedsAfter: ['app-manager'],
  ownsBarePath: ['GET /endpoints/{endpointId}'],
  setup(ctx) {
    setupEndpointIndexes(ctx);
    setupFilterIndexes(ctx);
  },
};
