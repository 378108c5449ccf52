import { ID_PATTERN, type FixtureSection } from '../../contract.js';
import type { Mutation } from '../../store/index.js';
import { findVersion, findApplicationOfAnyTenant } from '../app-manager/applications.js';
import { ENDPOINTS, newEndpoint, type TokenStatus } from './endpoints.js';
import { endpointIdSchema, endpointTokenSchema, metadataSchema } from './schemas.js';
import { ENDPOINT_FILTERS, matchProblem, type EndpointFilter } from './filters.js';
import { FixtureError } from '../../seed/errors.js';

export const endpointFixtures: FixtureSection = {
  key: 'endpoints',
  label: (e) => e.endpointId as string,
  item: {
    type: 'object',
    required: ['endpointId', 'appVersion', 'token'],
    properties: {
      endpointId: endpointIdSchema,
      appVersion: { type: 'string', minLength: 1 },
      token: endpointTokenSchema,
      tokenStatus: { enum: ['Inactive', 'Active'] },
      metadata: metadataSchema,
    },
    additionalProperties: false,
  },
  async seed(ctx, items) {
    const now = ctx.clock.nowIso();
    // One by one, so that each endpoint's uniqueness checks see the ones before it (seeding runs in a scratch store).
    for (const [i, item] of items.entries()) {
      const version = findVersion(ctx, item.appVersion as string);
      if (!version)
        throw new FixtureError(
          `endpoints[${i}] (${item.endpointId}): appVersion ${item.appVersion} is not a version of any ` +
            `application in the fixtures.`,
        );
      let endpoint;
      try {
        endpoint = newEndpoint(
          ctx,
          version.tenantId,
          {
            appVersion: { name: version.name },
            endpointId: item.endpointId as string,
            endpointToken: item.token as string,
            metadata: item.metadata as Record<string, unknown> | undefined,
          },
          now,
        );
      } catch (err) {
        throw new FixtureError(`endpoints[${i}] (${item.endpointId}): ${(err as Error).message}`);
      }
      await ENDPOINTS.put(ctx, endpoint.endpointId, {
        ...endpoint,
        tokenStatus: (item.tokenStatus as TokenStatus | undefined) ?? 'Inactive',
      });
    }
  },
};

export const filterFixtures: FixtureSection = {
  key: 'endpointFilters',
  label: (f) => f.filterId as string,
  item: {
    type: 'object',
    required: ['applicationName', 'filterId', 'match'],
    properties: {
      applicationName: { type: 'string' },
      filterId: { type: 'string', pattern: ID_PATTERN },
      status: { enum: ['ACTIVE', 'INACTIVE'] },
      description: { type: 'string' },
      match: { type: 'object' },
    },
    additionalProperties: false,
  },
  async seed(ctx, items) {
    const mutations: Mutation[] = items.map((item, i) => {
      const app = findApplicationOfAnyTenant(ctx, item.applicationName as string);
      if (!app)
        throw new FixtureError(
          `endpointFilters[${i}] (${item.filterId}): applicationName ${item.applicationName} is not an ` +
            `application in the fixtures.`,
        );
      const problem = matchProblem(item.match);
      if (problem) throw new FixtureError(`endpointFilters[${i}] (${item.filterId}): ${problem}.`);
      return ENDPOINT_FILTERS.putMutation(`${item.applicationName}/${item.filterId}`, {
        tenantId: app.tenantId,
        status: 'ACTIVE',
        ...item,
      } as EndpointFilter);
    });
    await ctx.store.commit(mutations);
  },
};
