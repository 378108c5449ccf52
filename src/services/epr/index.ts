import { DATE_TIME, tenantRecord, type ServiceDescriptor } from '../../server/service.js';
import { ENDPOINT_ID_PATTERN, setupEndpointIndexes, TOKEN_PATTERN } from './endpoints.js';
import { setupFilterIndexes } from './filters.js';
import { endpointFixtures, filterFixtures } from './fixtures.js';
import { routes } from './routes.js';

export const endpointRegister: ServiceDescriptor = {
  prefix: 'epr',
  title: 'Endpoint register',
  serviceGroup: 'device',
  routes,
  collections: {
    endpoints: tenantRecord(['endpointId', 'appName', 'appVersion', 'token', 'tokenStatus', 'createdDate', 'updatedDate'], {
      endpointId: { type: 'string', pattern: ENDPOINT_ID_PATTERN.source },
      appVersion: { type: 'object', required: ['name', 'registeredDate'], properties: { name: { type: 'string' }, registeredDate: DATE_TIME } },
      token: { type: 'string', pattern: TOKEN_PATTERN.source },
      tokenStatus: { enum: ['Inactive', 'Active'] },
      createdDate: DATE_TIME,
      updatedDate: DATE_TIME,
      metadata: { type: 'object', default: {} },
      metadataUpdatedDate: DATE_TIME,
    }),
    // The filter language (operators and operands of `match`) is checked by matchProblem on import.
    'endpoint-filters': tenantRecord(['applicationName', 'filterId', 'status', 'match'], {
      status: { enum: ['ACTIVE', 'INACTIVE'] },
      description: { type: 'string' },
      match: { type: 'object' },
    }),
  },
  fixtures: [endpointFixtures, filterFixtures],
  setup(ctx) {
    setupEndpointIndexes(ctx);
    setupFilterIndexes(ctx);
  },
};
