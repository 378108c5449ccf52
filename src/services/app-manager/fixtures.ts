import type { Mutation } from '../../store/index.js';
import { ID_PATTERN, type FixtureSection } from '../../contract.js';
import { APP_VERSIONS, APPLICATIONS, type Application, type AppVersion } from './applications.js';
import { APP_NAME_PATTERN } from './schemas.js';
import { SERVICE_INSTANCES } from './service-instances.js';

const text = { type: 'string' };

export const applicationFixtures: FixtureSection = {
  key: 'applications',
  label: (a) => a.name as string,
  item: {
    type: 'object',
    required: ['tenantId', 'name', 'versions'],
    properties: {
      tenantId: text,
      name: { type: 'string', pattern: APP_NAME_PATTERN },
      displayName: text,
      description: text,
      versions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', pattern: ID_PATTERN }, displayName: text, description: text },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  async seed(ctx, items) {
    const now = ctx.clock.nowIso();
    const mutations: Mutation[] = [];
    for (const item of items) {
      const { versions, ...app } = item as { versions: Record<string, unknown>[]; name: string; tenantId: string };
      mutations.push(APPLICATIONS.putMutation(app.name, { ...app, createdDate: now, updatedDate: now } as Application));
      for (const version of versions) {
        const record = {
          tenantId: app.tenantId,
          appName: app.name,
          ...version,
          createdDate: now,
          updatedDate: now,
        } as AppVersion;
        mutations.push(APP_VERSIONS.putMutation(version.name as string, record));
      }
    }
    await ctx.store.commit(mutations);
  },
};

export const serviceInstanceFixtures: FixtureSection = {
  key: 'serviceInstances',
  label: (s) => s.name as string,
  item: {
    type: 'object',
    required: ['name'],
    properties: {
      name: text,
      description: text,
      appConfigurationSchema: { type: 'object' },
      appVersionConfigurationSchema: { type: 'object' },
    },
    additionalProperties: false,
  },
  async seed(ctx, items) {
    await ctx.store.commit(items.map((s) => SERVICE_INSTANCES.putMutation(s.name as string, s)));
  },
};
