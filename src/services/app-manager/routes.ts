import type { Request, Response } from 'express';
import { PLATFORM_SCOPE } from '../../auth/scopes.js';
import { badRequest, HttpError, notFound } from '../../server/errors.js';
import { locationOf } from '../../server/location.js';
import { pathParam, queryList, queryString } from '../../server/params.js';
import { route, type BodyRequest, type QueryParam, type Route } from '../../contract.js';
import { applicationCreateSchema, versionCreateSchema, type NamedInput } from './schemas.js';
import { findTenant } from '../tenant-manager/tenants.js';
import {
  createApplication,
  createVersion,
  findTenantVersion,
  listApplications,
  requireApplication,
  versionsOf,
  type AppNaming,
  type Application,
  type AppVersion,
} from './applications.js';
import { serviceInstances, type SchemaInclude } from './service-instances.js';

const INCLUDES: SchemaInclude[] = ['appConfigurationSchema', 'appVersionConfigurationSchema'];

function includes(req: Request): SchemaInclude[] {
  const wanted = queryList(req, 'include') ?? [];
  const wrong = wanted.find((w) => !INCLUDES.includes(w as SchemaInclude));
  if (wrong) throw badRequest(`Query parameter include must be one of ${INCLUDES.join(', ')}; got "${wrong}".`);
  return wanted as SchemaInclude[];
}

const presentVersion = ({ tenantId: _t, appName: _a, ...fields }: AppVersion) => fields;

function presentApplication(req: Request, app: Application) {
  const { tenantId, ...fields } = app;
  return { ...fields, tenantId, versions: versionsOf(req.ctx, app.name).map(presentVersion) };
}

/**
 * The tenant a request names with `?tenantId=` (later revision): its own, or any when auth is off or it holds the
 * platform scope. The first revision (`--compat app-manager=1`) takes no `tenantId` and only the platform scope.
 */
function targetTenant(req: Request): string {
  const asked = queryString(req, 'tenantId');
  const own = req.principal.tenantId;
  const scopes = req.principal.scopes;
  const platform = scopes === 'all' || scopes.has(`${PLATFORM_SCOPE}:application:create`);
  if (req.ctx.config.compat['app-manager'] === '1') {
    if (asked !== undefined)
      throw badRequest('The first revision of application creation takes no tenantId (--compat app-manager=1).');
    if (!platform) {
      throw new HttpError(
        403,
        `The first revision of application creation needs the scope ${PLATFORM_SCOPE}:application:create.`,
      );
    }
    return own;
  }
  if (asked === undefined || asked === own) return own;
  if (!platform)
    throw new HttpError(403, `Acting in tenant ${asked} needs the scope ${PLATFORM_SCOPE}:application:create.`);
  if (!findTenant(req.ctx, asked)) throw badRequest(`There is no tenant ${asked}.`);
  return asked;
}

/** The first revision requires a name; the later one generates it where name auto-generation is on. */
const namingOf = (req: Request): AppNaming =>
  req.ctx.config.compat['app-manager'] !== '1' && req.ctx.config.generateAppNames ? 'generated' : 'required';

async function create(req: BodyRequest<NamedInput>, res: Response) {
  const tenantId = targetTenant(req);
  const app = await createApplication(req.ctx, tenantId, req.body, namingOf(req));
  res
    .status(201)
    .location(locationOf(req, 'applications', app.name))
    .json(presentApplication(req, app));
}

function list(req: Request, res: Response) {
  const asked = queryString(req, 'tenantId');
  const tenantId = asked !== undefined && req.ctx.config.auth === 'off' ? asked : req.principal.tenantId;
  const apps = asked !== undefined && asked !== tenantId ? [] : listApplications(req.ctx, tenantId);
  res.json(apps.map((app) => presentApplication(req, app)));
}

function getOne(req: Request, res: Response) {
  const app = requireApplication(req.ctx, req.principal.tenantId, pathParam(req, 'appName'));
  res.json(presentApplication(req, app));
}

async function createVersionRoute(req: BodyRequest<NamedInput>, res: Response) {
  const version = await createVersion(req.ctx, req.principal.tenantId, pathParam(req, 'appName'), req.body);
  res
    .status(201)
    .location(locationOf(req, 'applications', version.appName, 'versions', version.name))
    .json(presentVersion(version));
}

function getVersion(req: Request, res: Response) {
  const version = findTenantVersion(req.ctx, req.principal.tenantId, pathParam(req, 'versionName'));
  if (!version || version.appName !== req.params.appName)
    throw notFound(`There is no version ${req.params.versionName} of application ${req.params.appName}.`);
  res.json(presentVersion(version));
}

function instance(req: Request, res: Response) {
  const found = serviceInstances(req.ctx, includes(req)).find((s) => s.name === req.params.serviceInstanceName);
  if (!found) throw notFound(`There is no service instance ${req.params.serviceInstanceName}.`);
  res.json(found);
}

export const CREATE_SCOPE = '<platform>:application:create | tenant:application:create';

const includeParam: QueryParam = { name: 'include', description: INCLUDES.join(' and/or ') + ', comma-separated' };
const tenantParam: QueryParam = { name: 'tenantId', description: "default: the caller's tenant" };

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/service-instances',
    scope: null,
    summary: 'List service instances',
    query: [includeParam],
    handler: (req, res) => res.json(serviceInstances(req.ctx, includes(req))),
  },
  {
    method: 'GET',
    path: '/service-instances/{serviceInstanceName}',
    scope: null,
    summary: 'Get a service instance',
    query: [includeParam],
    handler: instance,
  },
  route({
    method: 'POST',
    path: '/applications',
    scope: CREATE_SCOPE,
    summary: 'Create an application',
    location: true,
    query: [tenantParam],
    bodySchema: applicationCreateSchema,
    successStatus: 201,
    handler: create,
  }),
  {
    method: 'GET',
    path: '/applications',
    scope: 'application:read',
    summary: 'List applications with their versions',
    query: [tenantParam],
    handler: list,
  },
  {
    method: 'GET',
    path: '/applications/{appName}',
    scope: 'application:read',
    summary: 'Get an application with its versions',
    handler: getOne,
  },
  route({
    method: 'POST',
    path: '/applications/{appName}/versions',
    scope: 'application:update',
    summary: 'Create an application version (emulator addition)',
    addition: true,
    location: true,
    bodySchema: versionCreateSchema,
    successStatus: 201,
    handler: createVersionRoute,
  }),
  {
    method: 'GET',
    path: '/applications/{appName}/versions/{versionName}',
    scope: 'application:read',
    summary: 'Get an application version (emulator addition)',
    addition: true,
    handler: getVersion,
  },
];
