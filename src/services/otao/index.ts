// Over-the-air orchestrator (otao): software versions and their rollout to endpoints.
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { softwareFixtures } from './fixtures.js';
import { startRolloutDates, stopRolloutDates } from './rollout-dates.js';
import { routes } from './routes.js';

export const otaOrchestrator: ServiceDescriptor = {
  prefix: 'otao',
  title: 'Over-the-air orchestrator',
  serviceGroup: 'device',
  routes,
  collections: { software: tenantRecord(['appName', 'version', 'rolloutStrategy', 'createdDate', 'updatedDate']) },
  fixtures: [softwareFixtures],
  seedsAfter: ['epr'],
  setup(ctx) {
    startRolloutDates(ctx);
  },
  teardown: stopRolloutDates,
};
