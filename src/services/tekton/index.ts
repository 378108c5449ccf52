// Application configuration service (tekton): configurations of applications.
import type { ServiceDescriptor } from '../../contract.js';
import { appConfigSchema } from './schemas.js';
import { appConfigFixtures } from './fixtures.js';
import { routes } from './routes.js';

export const applicationConfiguration: ServiceDescriptor = {
  prefix: 'tekton',
  title: 'Application configuration service',
  serviceGroup: 'device',
  routes,
  collections: { 'app-configs': appConfigSchema },
  fixtures: [appConfigFixtures],
  seedsAfter: ['app-manager'],
};
