import { ID_PATTERN, tenantRecord, typedSchema, type FromSchema } from '../../contract.js';
import { withPasswordHash } from '../../auth/passwords.js';

export const REALM_NAME_PATTERN = '^[a-zA-Z0-9_-]+$';
/** Tenant ids stand in tokens and URL paths: an id (ID_PATTERN) of at most 64 characters. */
export const tenantIdSchema = { type: 'string', pattern: ID_PATTERN, maxLength: 64 } as const;

/** The create request's integer fields the spec marks required. */
export const REQUIRED_VERSIONS = [
  'realm_template_version',
  'realm_scopes_version',
  'client_backend_version',
  'client_frontend_version',
  'roles_version',
  'resources_version',
] as const;

const integer = { type: 'integer' } as const;
type RequiredVersions = { [K in (typeof REQUIRED_VERSIONS)[number]]: typeof integer };

/**
 * `POST /tenants`, both revisions: the later revision's `user_roles`, `idp_server`, `package_type`, `subscription_type`
 * are optional here.
 */
export const tenantCreateSchema = typedSchema({
  type: 'object',
  required: ['realm_name', ...REQUIRED_VERSIONS],
  properties: {
    id: tenantIdSchema,
    realm_name: { type: 'string', pattern: REALM_NAME_PATTERN, maxLength: 64 },
    ...(Object.fromEntries(REQUIRED_VERSIONS.map((f) => [f, integer])) as RequiredVersions),
    idp_version: { type: 'boolean' },
    user: integer,
    user_roles: integer,
    idp_server: integer,
    package_type: integer,
    subscription_type: { type: 'string' },
    analytics_enabled: { type: 'boolean' },
    js_policies: { type: 'array' },
  },
});

/** `POST`/`PUT` of a realm, frontend-client or backend-client template. */
export const templateSchema = typedSchema({
  type: 'object',
  required: ['template', 'description'],
  properties: { template: { type: 'object' }, description: { type: 'string' } },
});

export type TenantCreate = FromSchema<typeof tenantCreateSchema>;
export type TemplateInput = FromSchema<typeof templateSchema>;

/** `all`, or a list of scopes; a record without it has every scope. */
const scopes = { oneOf: [{ const: 'all' }, { type: 'array', items: { type: 'string' } }], default: 'all' } as const;

export const tenantRecordSchema = tenantRecord(['id', 'realm_name'], {
  id: tenantIdSchema,
  realm_name: { type: 'string', pattern: REALM_NAME_PATTERN },
});
export const realmClientRecord = tenantRecord(['clientId', 'secret'], { scopes, requirePkce: { type: 'boolean' } });
export const realmUserRecord = withPasswordHash(tenantRecord(['username', 'passwordHash'], { scopes }));
/** A realm, frontend-client or backend-client template: platform-wide, no tenant. */
export const templateRecord = {
  type: 'object',
  required: ['id', 'template', 'description'],
  properties: { id: { type: 'integer', minimum: 1 }, template: { type: 'object' }, description: { type: 'string' } },
} as const;
