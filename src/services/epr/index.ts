import { tenantRecord, type ServiceDescriptor } from '../../server/service.js';
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
  setup(ctx) {
    setupEndpointIndexes(ctx);
    setupFilterIndexes(ctx);
  },
};
