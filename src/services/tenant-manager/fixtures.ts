import { FixtureError } from '../../seed/errors.js';
import { REALM_NAME_PATTERN, tenantIdSchema } from './schemas.js';
import type { EmuContext } from '../../context.js';
import type { Mutation } from '../../store/index.js';
import type { FixtureSection } from '../../contract.js';
import { storedPassword } from '../../auth/passwords.js';
import {
  backendClient,
  newTenantRecord,
  REALM_CLIENTS,
  REALM_USERS,
  SETTINGS,
  TENANTS,
  type RealmClient,
  type RealmUser,
} from './tenants.js';

const scopes = { oneOf: [{ const: 'all' }, { type: 'array', items: { type: 'string' } }] };

/** Two tenants of one id, or of one realm name (the second would shadow the first at sign-in), are refused. */
function checkDistinct(items: ReadonlyArray<{ id: string; realm_name: string }>): void {
  const ids = new Set<string>();
  const realms = new Map<string, string>();
  items.forEach(({ id, realm_name }, i) => {
    if (ids.has(id)) throw new FixtureError(`tenants[${i}] (${id}): there is already a tenant ${id}.`);
    const owner = realms.get(realm_name);
    if (owner !== undefined) {
      throw new FixtureError(
        `tenants[${i}] (${id}): realm_name "${realm_name}" is already the realm of tenant ${owner}.`,
      );
    }
    ids.add(id);
    realms.set(realm_name, id);
  });
}

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
          properties: {
            clientId: { type: 'string', minLength: 1 },
            secret: { type: 'string', minLength: 1 },
            scopes,
            requirePkce: { type: 'boolean' },
          },
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
    checkDistinct(items as Array<{ id: string; realm_name: string }>);
    const now = ctx.clock.nowIso();
    const mutations: Mutation[] = [];
    for (const item of items) {
      const {
        clients = [],
        users = [],
        ...fields
      } = item as {
        clients?: Record<string, unknown>[];
        users?: Record<string, unknown>[];
        id: string;
        realm_name: string;
      };
      const first = clients[0];
      const tenant = newTenantRecord(
        { ...fields, ...(first ? { client_backend_id: first.clientId, client_backend_secret: first.secret } : {}) },
        now,
      );
      mutations.push(TENANTS.putMutation(tenant.id, tenant));
      // A tenant without clients still has a working backend client: the one its record names.
      for (const c of first ? clients : [backendClient(tenant)]) {
        mutations.push(
          REALM_CLIENTS.putMutation(`${tenant.id}/${c.clientId}`, {
            tenantId: tenant.id,
            scopes: 'all',
            ...c,
          } as RealmClient),
        );
      }
      const hashes = await Promise.all(users.map((u) => storedPassword(u.password as string)));
      users.forEach(({ password: _clear, ...u }, i) => {
        mutations.push(
          REALM_USERS.putMutation(`${tenant.id}/${u.username}`, {
            tenantId: tenant.id,
            scopes: 'all',
            ...u,
            passwordHash: hashes[i],
          } as RealmUser),
        );
      });
    }
    const defaultTenant =
      typeof fixture.defaultTenant === 'string' ? fixture.defaultTenant : (items[0]?.id as string | undefined);
    if (defaultTenant) mutations.push(SETTINGS.putMutation('defaultTenant', { value: defaultTenant }));
    await ctx.store.commit(mutations);
  },
};
