import type { FixtureSection } from '../../contract.js';
import { FixtureError } from '../../seed/errors.js';
import { findApplicationOfAnyTenant } from '../app-manager/applications.js';
import {
  INTEGRATIONS,
  newIntegration,
  reported,
  type DeviceInput,
  type IntegrationInput,
  type NetworkServerReport,
} from './integrations.js';
import { integrationFixtureSchema } from './schemas.js';

/** `lorawanIntegrations`: integrations with what their network server reports (state, error, status, devices). */
export const integrationFixtures: FixtureSection = {
  key: 'lorawanIntegrations',
  label: (i) => i.name as string,
  item: integrationFixtureSchema,
  async seed(ctx, items) {
    const now = ctx.clock.nowIso();
    // One by one, so that each integration's uniqueness checks see the ones before it.
    for (const [i, item] of items.entries()) {
      const { status, state, error, devices, ...input } = item as unknown as IntegrationInput &
        NetworkServerReport & { devices?: DeviceInput[] };
      const app = findApplicationOfAnyTenant(ctx, input.appName);
      if (!app)
        throw new FixtureError(
          `lorawanIntegrations[${i}] (${input.name}): appName ${input.appName} is not an application in the fixtures.`,
        );
      try {
        const integration = newIntegration(ctx, app.tenantId, input, now);
        const seeded = reported(ctx, integration, { status, state, error, devices }, now);
        await INTEGRATIONS.put(ctx, String(seeded.id), seeded);
      } catch (err) {
        throw new FixtureError(`lorawanIntegrations[${i}] (${input.name}): ${(err as Error).message}`);
      }
    }
  },
};
