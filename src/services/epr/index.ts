// Endpoint register (epr): endpoints, their tokens and metadata.
import type { ServiceDescriptor } from '../../contract.js';
import { endpointFilterRecord, endpointRecord } from './schemas.js';
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
};
