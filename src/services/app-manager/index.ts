// Application manager (app-manager): applications and their versions, service instances.
import type { ServiceDescriptor } from '../../contract.js';
import { applicationRecord, appVersionRecord } from './schemas.js';
import { applicationFixtures, serviceInstanceFixtures } from './fixtures.js';
import { routes } from './routes.js';

export const appManager: ServiceDescriptor = {
  prefix: 'app-manager',
  title: 'Application manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    applications: applicationRecord,
    'app-versions': appVersionRecord,
    'service-instances': {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        appConfigurationSchema: { type: 'object' },
        appVersionConfigurationSchema: { type: 'object' },
      },
    },
  },
  fixtures: [serviceInstanceFixtures, applicationFixtures],
  seedsAfter: ['tenant-manager'],
  // 1: an application's name is required at creation; 2: it may be generated.
  compat: { revisions: ['1', '2'], default: '2' },
};
