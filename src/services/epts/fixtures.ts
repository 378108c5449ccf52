import { FixtureError } from '../../seed/errors.js';
import type { FixtureSection } from '../../contract.js';
import { findApplicationOfAnyTenant } from '../app-manager/applications.js';
import { definitionCovering, findDefinition } from './definitions.js';
import { definitionFixtureSchema } from './schemas.js';

export const definitionFixtures: FixtureSection = {
  key: 'timeSeries',
  label: (d) => `${d.applicationName}/${d.name}`,
  item: definitionFixtureSchema,
  async seed(ctx, items) {
    const now = ctx.clock.nowIso();
    for (const [i, item] of items.entries()) {
      const { applicationName, name, values } = item as { applicationName: string; name: string; values: string[] };
      const where = `timeSeries[${i}] (${applicationName}/${name})`;
      const app = findApplicationOfAnyTenant(ctx, applicationName);
      if (!app)
        throw new FixtureError(`${where}: applicationName ${applicationName} is not an application in the fixtures.`);
      if (findDefinition(ctx, applicationName, name))
        throw new FixtureError(`${where}: the application defines ${name} twice.`);
      await ctx.store.commit([definitionCovering(ctx, app.tenantId, applicationName, name, values, now)!]);
    }
  },
};
