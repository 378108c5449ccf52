// Application configuration service (tekton): configurations of applications.
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { appConfigFixtures } from './fixtures.js';
import { routes } from './routes.js';

export const applicationConfiguration: ServiceDescriptor = {
  prefix: 'tekton',
  title: 'Application configuration service',
  serviceGroup: 'device',
  routes,
  collections: { 'app-configs': tenantRecord(['appName', 'appVersionName', 'createdDate', 'updatedDate']) },
  fixtures: [appConfigFixtures],
  seedsAfter: ['app-manager'],
};
