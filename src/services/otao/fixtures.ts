import type { FixtureSection } from '../../contract.js';
import { FixtureError } from '../../seed/errors.js';
import { findApplicationOfAnyTenant } from '../app-manager/applications.js';
import { softwareCreateSchema } from './schemas.js';
import { newSoftware, SOFTWARE, softwareId, type SoftwareInput } from './software.js';

/** `software`: `[{ "appName", "version", ...the body of POST }]`, checked by the same rules as the REST create. */
export const softwareFixtures: FixtureSection = {
  key: 'software',
  label: (s) => `${s.appName} ${s.version}`,
  item: {
    ...softwareCreateSchema,
    required: ['appName', 'version'],
    properties: {
      appName: { type: 'string' },
      version: { type: 'string' },
      ...(softwareCreateSchema.properties as object),
    },
  },
  async seed(ctx, items) {
    const now = ctx.clock.nowIso();
    // One by one: each version's uniqueness check sees the ones before it (seeding runs in a scratch store).
    for (const [i, item] of items.entries()) {
      const { appName, version, ...input } = item as unknown as { appName: string; version: string } & SoftwareInput;
      const app = findApplicationOfAnyTenant(ctx, appName);
      if (!app)
        throw new FixtureError(
          `software[${i}] (${appName} ${version}): appName is not an application in the fixtures.`,
        );
      let software;
      try {
        software = newSoftware(ctx, app, version, input, now);
      } catch (err) {
        throw new FixtureError(`software[${i}] (${appName} ${version}): ${(err as Error).message}`);
      }
      await SOFTWARE.put(ctx, softwareId(software), software);
    }
  },
};
