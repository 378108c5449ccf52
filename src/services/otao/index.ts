// Over-the-air orchestrator (otao): software versions and their rollout to endpoints.
import type { ServiceDescriptor } from '../../contract.js';
import { softwareFixtures } from './fixtures.js';
import { startRolloutDates, stopRolloutDates } from './rollout-dates.js';
import { routes } from './routes.js';
import { softwareRecord } from './schemas.js';

export const otaOrchestrator: ServiceDescriptor = {
  prefix: 'otao',
  title: 'Over-the-air orchestrator',
  serviceGroup: 'device',
  routes,
  collections: { software: softwareRecord },
  fixtures: [softwareFixtures],
  seedsAfter: ['epr'],
  setup(ctx) {
    startRolloutDates(ctx);
  },
  teardown: stopRolloutDates,
};
