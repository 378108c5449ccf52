// Application manager (app-manager): applications and their versions, service instances.
import { DATE_TIME, ID_PATTERN, tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { APP_NAME_PATTERN } from './schemas.js';
import { applicationFixtures, serviceInstanceFixtures } from './fixtures.js';
import { routes } from './routes.js';

export const appManager: ServiceDescriptor = {
  prefix: 'app-manager',
  title: 'Application manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    applications: tenantRecord(['name', 'createdDate', 'updatedDate'], {
      name: { type: 'string', pattern: APP_NAME_PATTERN },
      displayName: { type: 'string' },
      description: { type: 'string' },
      createdDate: DATE_TIME,
      updatedDate: DATE_TIME,
    }),
    'app-versions': tenantRecord(['appName', 'name', 'createdDate', 'updatedDate'], {
      appName: { type: 'string', pattern: APP_NAME_PATTERN },
      name: { type: 'string', pattern: ID_PATTERN },
      displayName: { type: 'string' },
      description: { type: 'string' },
      createdDate: DATE_TIME,
      updatedDate: DATE_TIME,
    }),
    'service-instances': {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, description: { type: 'string' }, appConfigurationSchema: { type: 'object' }, appVersionConfigurationSchema: { type: 'object' } },
    },
  },
  fixtures: [serviceInstanceFixtures, applicationFixtures],
  seedsAfter: ['tenant-manager'],
  // 1: an application's name is required at creation; 2: it may be generated.
  compat: { revisions: ['1', '2'], default: '2' },
};
