import { ID_PATTERN, type JsonSchema } from '../../contract.js';

export const REALM_NAME_PATTERN = '^[a-zA-Z0-9_-]+$';
/** Tenant ids stand in tokens and URL paths: an id (ID_PATTERN) of at most 64 characters. */
export const tenantIdSchema: JsonSchema = { type: 'string', pattern: ID_PATTERN, maxLength: 64 };

/** The create request's integer fields the spec marks required. */
export const REQUIRED_VERSIONS = [
  'realm_template_version',
  'realm_scopes_version',
  'client_backend_version',
  'client_frontend_version',
  'roles_version',
  'resources_version',
] as const;

const integer = { type: 'integer' };

/** `POST /tenants`, both revisions: the later revision's `user_roles`, `idp_server`, `package_type`, `subscription_type` are optional here. */
export const tenantCreateSchema: JsonSchema = {
  type: 'object',
  required: ['realm_name', ...REQUIRED_VERSIONS],
  properties: {
    id: tenantIdSchema,
    realm_name: { type: 'string', pattern: REALM_NAME_PATTERN, maxLength: 64 },
    ...Object.fromEntries(REQUIRED_VERSIONS.map((f) => [f, integer])),
    idp_version: { type: 'boolean' },
    user: integer,
    user_roles: integer,
    idp_server: integer,
    package_type: integer,
    subscription_type: { type: 'string' },
    analytics_enabled: { type: 'boolean' },
    js_policies: { type: 'array' },
  },
};

/** `POST`/`PUT` of a realm, frontend-client or backend-client template. */
export const templateSchema: JsonSchema = {
  type: 'object',
  required: ['template', 'description'],
  properties: { template: { type: 'object' }, description: { type: 'string' } },
};
