import type { FixtureSection } from '../../contract.js';
import { FixtureError } from '../../seed/errors.js';
import { findVersion } from '../app-manager/applications.js';
import { APP_CONFIGS, newAppConfig } from './app-configs.js';

/** `appConfigs`: `[{ "appVersion", "config" }]`, the configuration of application versions. */
export const appConfigFixtures: FixtureSection = {
  key: 'appConfigs',
  label: (c) => c.appVersion as string,
  item: {
    type: 'object',
    required: ['appVersion', 'config'],
    properties: { appVersion: { type: 'string', minLength: 1 }, config: {} },
    additionalProperties: false,
  },
  async seed(ctx, items) {
    const now = ctx.clock.nowIso();
    const seen = new Set<string>();
    const mutations = items.map((item, i) => {
      const version = findVersion(ctx, item.appVersion as string);
      if (!version)
        throw new FixtureError(
          `appConfigs[${i}] (${item.appVersion}): appVersion is not a version of any application in the fixtures.`,
        );
      if (seen.has(version.name))
        throw new FixtureError(`appConfigs[${i}] (${item.appVersion}): the version is configured twice.`);
      seen.add(version.name);
      return APP_CONFIGS.putMutation(version.name, newAppConfig(version, item.config, now));
    });
    await ctx.store.commit(mutations);
  },
};
