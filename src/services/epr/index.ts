// Endpoint register (epr): endpoints, their tokens and metadata.
import { DATE_TIME, tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { endpointIdSchema, endpointTokenSchema, metadataSchema } from './schemas.js';
import { endpointFixtures, filterFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { checkEndpointState } from './state-checks.js';

export const endpointRegister: ServiceDescriptor = {
  prefix: 'epr',
  title: 'Endpoint register',
  serviceGroup: 'device',
  routes,
  collections: {
    endpoints: tenantRecord(['endpointId', 'appName', 'appVersion', 'token', 'tokenStatus', 'createdDate', 'updatedDate'], {
      endpointId: endpointIdSchema,
      appVersion: { type: 'object', required: ['name', 'registeredDate'], properties: { name: { type: 'string' }, registeredDate: DATE_TIME } },
      token: endpointTokenSchema,
      tokenStatus: { enum: ['Inactive', 'Active'] },
      createdDate: DATE_TIME,
      updatedDate: DATE_TIME,
      metadata: { ...metadataSchema, default: {} },
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
  checkState: checkEndpointState,
  seedsAfter: ['app-manager'],
  ownsBarePath: ['GET /endpoints/{endpointId}'],
};
