export const TM = '/tenant-manager/api/v1';

/** The body of `POST /tenants` that makes a new tenant (realm) of this name; `fields` adds to it or overrides it. */
export const tenantRequest = (realm: string, fields: Record<string, unknown> = {}) => ({
  realm_name: realm,
  realm_template_version: 1,
  realm_scopes_version: 1,
  client_backend_version: 1,
  client_frontend_version: 1,
  roles_version: 1,
  resources_version: 1,
  ...fields,
});
