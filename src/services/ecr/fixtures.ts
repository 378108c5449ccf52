import type { FixtureSection } from '../../contract.js';
import { FixtureError } from '../../seed/errors.js';
import type { Mutation } from '../../store/index.js';
import { findVersion } from '../app-manager/applications.js';
import { findEndpoint } from '../epr/endpoints.js';
import { jsonPayload, type ConfigPayload } from './payload.js';
import { checkConfigName } from './config-name.js';
import { DEFAULT_CONFIGS, defaultConfigKey, ENDPOINT_CONFIGS, endpointConfigKey, nextRecord } from './records.js';
import { describeConfig } from './writes.js';
import { checkPayload } from './schema-check.js';

function payloadOfItem(item: Record<string, unknown>): ConfigPayload {
  const contentType = item.contentType as string | undefined;
  if (contentType === undefined || contentType === 'application/json') return jsonPayload(item.config);
  if (typeof item.config !== 'string') throw new Error(`a ${contentType} configuration is given as a string`);
  return { contentType, kind: 'text', value: item.config };
}

/**
 * `endpointConfigurations`: `[{ "appVersion", "endpointId"?, "config", "contentType"? }]`. Without `endpointId` the
 * item is the version's default configuration. Checked against the version's configuration schema like any write
 * (the package's own fixtures by the tests instead).
 */
export const configurationFixtures: FixtureSection = {
  key: 'endpointConfigurations',
  label: (c) => (c.endpointId as string | undefined) ?? `${c.appVersion} default`,
  item: {
    type: 'object',
    required: ['appVersion', 'config'],
    properties: {
      appVersion: { type: 'string', minLength: 1 },
      endpointId: { type: 'string', minLength: 1 },
      configName: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
      config: {},
      contentType: { type: 'string', pattern: '^(application/json|text/[a-z0-9.+-]+)$' },
    },
    additionalProperties: false,
  },
  async seed(ctx, items, _fixture, { schemasChecked }) {
    const now = ctx.clock.nowIso();
    const mutations: Mutation[] = [];
    const seen = new Set<string>();
    for (const [i, item] of items.entries()) {
      const where = `endpointConfigurations[${i}]`;
      const version = findVersion(ctx, item.appVersion as string);
      if (!version)
        throw new FixtureError(
          `${where}: appVersion ${item.appVersion} is not a version of any application in the fixtures.`,
        );
      const endpointId = item.endpointId as string | undefined;
      if (endpointId !== undefined) {
        const endpoint = findEndpoint(ctx, version.tenantId, endpointId);
        if (!endpoint || endpoint.appName !== version.appName)
          throw new FixtureError(
            `${where}: ${endpointId} is not an endpoint of application ${version.appName} in the fixtures.`,
          );
      }
      const configName = item.configName as string | undefined;
      const key =
        endpointId === undefined
          ? `default ${defaultConfigKey(version.name, configName)}`
          : endpointConfigKey(endpointId, version.name, configName);
      if (seen.has(key))
        throw new FixtureError(
          `${where}: the ` +
            `${endpointId === undefined ? 'default ' : ''}${describeConfig(configName)}${
              endpointId === undefined ? '' : ' of this endpoint'
            } ` +
            `for ${version.name} is given twice.`,
        );
      seen.add(key);
      let payload: ConfigPayload;
      try {
        if (configName !== undefined) checkConfigName(configName);
        payload = payloadOfItem(item);
        if (!schemasChecked) checkPayload(ctx, version.name, payload);
      } catch (err) {
        throw new FixtureError(`${where}: ${(err as Error).message}`);
      }
      const record = nextRecord(version, payload, now, undefined, endpointId, configName);
      mutations.push(
        endpointId === undefined
          ? DEFAULT_CONFIGS.putMutation(defaultConfigKey(version.name, configName), record)
          : ENDPOINT_CONFIGS.putMutation(endpointConfigKey(endpointId, version.name, configName), record),
      );
    }
    await ctx.store.commit(mutations);
  },
};
