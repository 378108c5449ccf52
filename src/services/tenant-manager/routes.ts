import type { Request, Response } from 'express';
import { issuerUrl } from '../../auth/oidc-routes.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import { paginate } from '../../server/pagination.js';
import { pathParam, queryString } from '../../server/params.js';
import type { Route } from '../../server/service.js';
import { TEMPLATE_KINDS, templateRoutes } from './templates.js';
import { getTenant, listTenants, newTenantRecord, tenantByRealm, TENANTS, type Tenant } from './tenants.js';

const REQUIRED_CREATE = [
  'realm_template_version',
  'realm_scopes_version',
  'client_backend_version',
  'client_frontend_version',
  'roles_version',
  'resources_version',
] as const;

/** The stored tenant, with `issuer` at the address the caller used. */
function present(req: Request, tenant: Tenant) {
  const { tenantId: _own, ...fields } = tenant;
  return { ...fields, issuer: issuerUrl(req, tenant.realm_name) };
}

function list(req: Request, res: Response) {
  const filters = ['realm_name', 'status', 'analytics_enabled', 'subscription_type'] as const;
  const wanted = filters.map((f) => [f, queryString(req, f)] as const).filter(([, v]) => v !== undefined);
  const tenants = listTenants(req.ctx).filter((t) => wanted.every(([f, v]) => String(t[f]) === v));
  const page = paginate(req, tenants, 50);
  res.json({ count: page.total, results: page.items.map((t) => present(req, t)) });
}

async function create(req: Request, res: Response) {
  const body = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The body must be a tenant create request (a JSON object).');
  if (typeof body.realm_name !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(body.realm_name)) {
    throw badRequest('realm_name is required: letters, digits, "-" and "_".');
  }
  for (const field of REQUIRED_CREATE) {
    if (!Number.isInteger(body[field])) throw badRequest(`${field} is required and must be an integer.`);
  }
  if (tenantByRealm(req.ctx, body.realm_name)) throw conflict(`A tenant with realm_name ${body.realm_name} exists already.`);
  const { idp_version, ...rest } = body;
  const tenant = newTenantRecord({ ...rest, idp_version: idp_version === true ? 1 : 0, status: 'CREATING' }, new Date().toISOString());
  await req.ctx.store.put(TENANTS, tenant.id, tenant);
  res.status(201).json(present(req, tenant));
}

function getOne(req: Request, res: Response) {
  const tenant = getTenant(req.ctx, pathParam(req, 'tenantId'));
  if (!tenant) throw notFound(`There is no tenant ${req.params.tenantId}.`);
  res.json(present(req, tenant));
}

export const routes: Route[] = [
  { method: 'GET', path: '/tenants', scope: '<platform>:tenant:read', summary: 'List tenants', handler: list },
  { method: 'POST', path: '/tenants', scope: '<platform>:tenant:create', summary: 'Register a tenant', handler: create },
  { method: 'GET', path: '/tenants/{tenantId}', scope: '<platform>:tenant:read', summary: 'Get a tenant', handler: getOne },
  ...TEMPLATE_KINDS.flatMap(templateRoutes),
];
