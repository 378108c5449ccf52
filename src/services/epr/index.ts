import type { ServiceDescriptor } from '../../contract.js';
import { setupEndpointIndexes } from './endpoints.js';
import { endpointFilterRecord, endpointRecord } from './schemas.js';
import { setupFilterIndexes } from './filters.js';
import { endpointFixtures, filterFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { checkEndpointState } from './state-checks.js';

export const endpointRegister: ServiceDescriptor = {
  prefix: 'epr',
  title: 'Endpoint register',
  serviceGroup: 'device',
  routes,
  collections: {
    endpoints: endpointRecord,
    'endpoint-filters': endpointFilterRecord,
  },
  fixtures: [endpointFixtures, filterFixtures],
  checkState: checkEndpointState,
  seedsAfter: ['app-manager'],
  ownsBarePath: ['GET /endpoints/{endpointId}'],
  setup(ctx) {
    setupEndpointIndexes(ctx);
    setupFilterIndexes(ctx);
  },
};
