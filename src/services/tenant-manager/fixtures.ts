import { REALM_NAME_PATTERN, tenantIdSchema } from './schemas.js';
import type { EmuContext } from '../../context.js';
import type { Mutation } from '../../store/index.js';
import type { FixtureSection } from '../../contract.js';
import { storedPassword } from '../../auth/passwords.js';
import { backendClient, newTenantRecord, REALM_CLIENTS, REALM_USERS, SETTINGS, TENANTS } from './tenants.js';

const scopes = { oneOf: [{ const: 'all' }, { type: 'array', items: { type: 'string' } }] };

export const tenantFixtures: FixtureSection = {
  key: 'tenants',
  label: (t) => t.id as string,
  item: {
    type: 'object',
    required: ['id', 'realm_name'],
    properties: {
      id: tenantIdSchema,
      realm_name: { type: 'string', pattern: REALM_NAME_PATTERN },
      clients: {
        type: 'array',
        items: {
          type: 'object',
          required: ['clientId', 'secret'],
          properties: { clientId: { type: 'string', minLength: 1 }, secret: { type: 'string', minLength: 1 }, scopes },
          additionalProperties: false,
        },
      },
      users: {
        type: 'array',
        items: {
          type: 'object',
          required: ['username', 'password'],
          properties: {
            username: { type: 'string', minLength: 1 },
            // In clear, or a hash from a state export (`scrypt$...`): stored only as a hash.
            password: { type: 'string', minLength: 1 },
            scopes,
            platformAdmin: { type: 'boolean' },
          },
          additionalProperties: false,
        },
      },
    },
  },
  async seed(ctx: EmuContext, items, fixture) {
    const now = ctx.clock.nowIso();
    const mutations: Mutation[] = [];
    for (const item of items) {
      const { clients = [], users = [], ...fields } = item as { clients?: Record<string, unknown>[]; users?: Record<string, unknown>[]; id: string; realm_name: string };
      const first = clients[0];
      const tenant = newTenantRecord(
        { ...fields, ...(first ? { client_backend_id: first.clientId, client_backend_secret: first.secret } : {}) },
        now,
      );
      mutations.push({ op: 'put', c: TENANTS, id: tenant.id, v: tenant });
      // A tenant without clients still has a working backend client: the one its record names.
      for (const c of first ? clients : [backendClient(tenant)]) {
        mutations.push({ op: 'put', c: REALM_CLIENTS, id: `${tenant.id}/${c.clientId}`, v: { tenantId: tenant.id, scopes: 'all', ...c } });
      }
      const hashes = await Promise.all(users.map((u) => storedPassword(u.password as string)));
      users.forEach(({ password: _clear, ...u }, i) => {
        mutations.push({ op: 'put', c: REALM_USERS, id: `${tenant.id}/${u.username}`, v: { tenantId: tenant.id, scopes: 'all', ...u, passwordHash: hashes[i] } });
      });
    }
    const defaultTenant = typeof fixture.defaultTenant === 'string' ? fixture.defaultTenant : (items[0]?.id as string | undefined);
    if (defaultTenant) mutations.push({ op: 'put', c: SETTINGS, id: 'defaultTenant', v: { value: defaultTenant } });
    await ctx.store.commit(mutations);
  },
};
