import type { Request, Response } from 'express';
import { issuerUrl } from '../../server/location.js';
import { badRequest, notFound } from '../../server/errors.js';
import { pageParams, paginate } from '../../server/pagination.js';
import { pathParam, queryString } from '../../server/params.js';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { templateRoutes } from './template-routes.js';
import { TEMPLATE_KINDS } from './templates.js';
import { tenantCreateSchema, type TenantCreate } from './schemas.js';
import { createTenant, findTenant, listTenants, type Tenant } from './tenants.js';

const FILTERS = ['realm_name', 'status', 'analytics_enabled', 'subscription_type'] as const;

/** The stored tenant, with `issuer` at the address the caller used. */
function present(req: Request, tenant: Tenant) {
  const { tenantId: _own, ...fields } = tenant;
  return { ...fields, issuer: issuerUrl(req, tenant.realm_name) };
}

/** The values a filter may take, where the spec names them (spec 3, Tenant): anything else is 400. */
const FILTER_VALUES: Partial<Record<(typeof FILTERS)[number], readonly string[]>> = {
  status: ['AVAILABLE', 'CREATING', 'UPDATING', 'DISABLED', 'DELETED', 'SUSPENDED', 'FAILED'],
  subscription_type: ['PERMANENT', 'RENEWAL'],
};

function checkFilters(req: Request): void {
  for (const [name, values] of Object.entries(FILTER_VALUES)) {
    const value = queryString(req, name);
    if (value !== undefined && !values.includes(value)) {
      throw badRequest(`Query parameter ${name} must be one of ${values.join(', ')}; got "${value}".`);
    }
  }
}

function list(req: Request, res: Response) {
  checkFilters(req);
  const wanted = FILTERS.map((f) => [f, queryString(req, f)] as const).filter(([, v]) => v !== undefined);
  const tenants = listTenants(req.ctx).filter((t) => wanted.every(([f, v]) => String(t[f]) === v));
  const page = paginate(req, tenants, 50);
  res.json({ count: page.total, results: page.items.map((t) => present(req, t)) });
}

async function create(req: BodyRequest<TenantCreate>, res: Response) {
  const tenant = await createTenant(req.ctx, req.body);
  res.status(201).json(present(req, tenant));
}

function getOne(req: Request, res: Response) {
  const tenant = findTenant(req.ctx, pathParam(req, 'tenantId'));
  if (!tenant) throw notFound(`There is no tenant ${req.params.tenantId}.`);
  res.json(present(req, tenant));
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/tenants',
    scope: '<platform>:tenant:read',
    summary: 'List tenants',
    paging: 'results',
    query: [...pageParams(50), ...FILTERS.map((name) => ({ name }))],
    handler: list,
  },
  route({
    method: 'POST',
    path: '/tenants',
    scope: '<platform>:tenant:create',
    summary: 'Register a tenant',
    bodySchema: tenantCreateSchema,
    successStatus: 201,
    handler: create,
  }),
  {
    method: 'GET',
    path: '/tenants/{tenantId}',
    scope: '<platform>:tenant:read',
    summary: 'Get a tenant',
    handler: getOne,
  },
  ...TEMPLATE_KINDS.flatMap(templateRoutes),
];
