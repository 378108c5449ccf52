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
    subscription_type: { enum: ['PERMANENT', 'RENEWAL'] },
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

const typed = (type: string, keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, { type }]));

/** The keys spec 3 names inside a realm template, by type: a key of the wrong type is 400. Others are free. */
const realmTemplateKeys = {
  type: 'object',
  properties: {
    ...typed('integer', [
      'accessCodeLifespan',
      'accessTokenLifespan',
      'maxDeltaTimeSeconds',
      'refreshTokenMaxReuse',
      'waitIncrementSeconds',
      'maxFailureWaitSeconds',
      'ssoSessionIdleTimeout',
      'ssoSessionMaxLifespan',
      'accessCodeLifespanLogin',
      'otpPolicyInitialCounter',
      'otpPolicyLookAheadWindow',
      'offlineSessionIdleTimeout',
      'offlineSessionMaxLifespan',
      'quickLoginCheckMilliSeconds',
      'accessCodeLifespanUserAction',
      'minimumQuickLoginWaitSeconds',
      'ssoSessionIdleTimeoutRememberMe',
      'ssoSessionMaxLifespanRememberMe',
      'accessTokenLifespanForImplicitFlow',
      'actionTokenGeneratedByUserLifespan',
      'actionTokenGeneratedByAdminLifespan',
    ]),
    ...typed('boolean', [
      'adminEventsEnabled',
      'revokeRefreshToken',
      'bruteForceProtected',
      'editUsernameAllowed',
      'registrationAllowed',
      'resetPasswordAllowed',
      'loginWithEmailAllowed',
      'duplicateEmailsAllowed',
      'userManagedAccessAllowed',
      'adminEventsDetailsEnabled',
      'internationalizationEnabled',
      'registrationEmailAsUsername',
      'offlineSessionMaxLifespanEnabled',
    ]),
    ...typed('string', [
      'otpPolicyAlgorithm',
      'resetCredentialsFlow',
      'clientAuthenticationFlow',
      'dockerAuthenticationFlow',
    ]),
    ...typed('array', ['supportedLocales', 'enabledEventTypes', 'requiredCredentials', 'otpSupportedApplications']),
    browserSecurityHeaders: {
      type: 'object',
      properties: typed('string', [
        'xRobotsTag',
        'xFrameOptions',
        'xXSSProtection',
        'xContentTypeOptions',
        'contentSecurityPolicy',
        'strictTransportSecurity',
        'contentSecurityPolicyReportOnly',
      ]),
    },
  },
};

/** The keys spec 3 names inside a frontend or backend client template, by type. */
const clientTemplateKeys = {
  type: 'object',
  properties: {
    protocol: { type: 'string' },
    ...typed('array', ['webOrigins', 'redirectUris']),
    ...typed('boolean', ['publicClient', 'fullScopeAllowed', 'serviceAccountsEnabled', 'authorizationServicesEnabled']),
  },
};

/** The body of `POST`/`PUT` of a template of this kind (`realms` or a client kind): `templateSchema`, keys typed. */
export function templateBodySchema(kindPath: string): typeof templateSchema {
  const template = kindPath === 'realms' ? realmTemplateKeys : clientTemplateKeys;
  return { ...templateSchema, properties: { ...templateSchema.properties, template } } as typeof templateSchema;
}

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
