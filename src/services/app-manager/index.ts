import { tenantRecord, type ServiceDescriptor } from '../../server/contract.js';
import { setupApplicationIndexes } from './applications.js';
import { applicationFixtures, serviceInstanceFixtures } from './fixtures.js';
import { routes } from './routes.js';

export const appManager: ServiceDescriptor = {
  prefix: 'app-manager',
  title: 'Application manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    applications: tenantRecord('name', 'createdDate', 'updatedDate'),
    'app-versions': tenantRecord('appName', 'name', 'createdDate', 'updatedDate'),
    'service-instances': { type: 'object', required: ['name'] },
  },
  fixtures: [serviceInstanceFixtures, applicationFixtures],
  seedsAfter: ['tenant-manager'],
  setup: setupApplicationIndexes,
  // 1: an application's name is required at creation; 2: it may be generated.
  compat: { revisions: ['1', '2'], default: '2' },
};
