import type { Request, Response } from 'express';
import { notModified } from '../../server/conditional.js';
import { badRequest } from '../../server/errors.js';
import { locationOf } from '../../server/location.js';
import { pageParams, paginate } from '../../server/pagination.js';
import { pathParam, queryList } from '../../server/params.js';
import { route, type BodyRequest, type QueryParam, type Route } from '../../contract.js';
import { ENDPOINTS, registerEndpoint, requireEndpoint, type Endpoint } from './endpoints.js';
import { ENDPOINT_FILTERS, matchingFilterIds } from './filters.js';
import { endpointQueryOf, listEndpoints } from './listing.js';
import { endpointRegistrationSchema, type Registration } from './schemas.js';
import { metadataRoutes } from './metadata-routes.js';

type Include = 'metadata' | 'filters';

function includes(req: Request): Set<Include> {
  const wanted = queryList(req, 'include') ?? [];
  const wrong = wanted.find((w) => w !== 'metadata' && w !== 'filters');
  if (wrong)
    throw badRequest(`Query parameter include must be metadata, filters or both (comma-separated); got "${wrong}".`);
  return new Set(wanted as Include[]);
}

function present(req: Request, endpoint: Endpoint, include: Set<Include>) {
  return {
    endpointId: endpoint.endpointId,
    createdDate: endpoint.createdDate,
    appVersion: endpoint.appVersion,
    ...(include.has('metadata')
      ? { metadata: endpoint.metadata, metadataUpdatedDate: endpoint.metadataUpdatedDate ?? endpoint.createdDate }
      : {}),
    filters: include.has('filters') ? matchingFilterIds(req.ctx, endpoint.appName, endpoint.metadata) : [],
  };
}

async function register(req: BodyRequest<Registration>, res: Response) {
  const endpoint = await registerEndpoint(req.ctx, req.principal.tenantId, req.body);
  res
    .status(201)
    .location(locationOf(req, 'endpoints', endpoint.endpointId))
    .json({ token: endpoint.token, status: endpoint.tokenStatus });
}

function list(req: Request, res: Response) {
  const ctx = req.ctx;
  const include = includes(req);
  const query = endpointQueryOf(req);
  if (notModified(req, res, { revision: `${ENDPOINTS.rev(ctx)}.${ENDPOINT_FILTERS.rev(ctx)}` })) return;
  const page = paginate(req, listEndpoints(ctx, req.principal.tenantId, query), 100);
  res.json({ totalElements: page.total, content: page.items.map((e) => present(req, e, include)) });
}

function getOne(req: Request, res: Response) {
  const include = includes(req);
  const endpoint = requireEndpoint(req.ctx, req.principal.tenantId, pathParam(req, 'endpointId'));
  const revision = `${ENDPOINTS.rev(req.ctx, endpoint.endpointId)}${
    include.has('filters') ? `.${ENDPOINT_FILTERS.rev(req.ctx)}` : ''
  }`;
  if (notModified(req, res, { revision, lastModified: endpoint.updatedDate })) return;
  res.json(present(req, endpoint, include));
}

const include: QueryParam = { name: 'include', description: 'metadata, filters or both, comma-separated' };

export const routes: Route[] = [
  route({
    method: 'POST',
    path: '/endpoints',
    scope: 'application:endpoint:create',
    summary: 'Register an endpoint',
    location: true,
    bodySchema: endpointRegistrationSchema,
    successStatus: 201,
    handler: register,
  }),
  {
    method: 'GET',
    path: '/endpoints',
    scope: 'endpoint:read',
    summary: 'List endpoints',
    paging: 'content',
    etag: true,
    query: [
      { name: 'endpointId', description: 'one or more, comma-separated' },
      { name: 'applicationName' },
      { name: 'applicationVersionName' },
      { name: 'metadataFilter', description: 'a URL-encoded JSON object with one key' },
      { name: 'filterId', description: 'one or more, comma-separated' },
      include,
      ...pageParams(100),
    ],
    handler: list,
  },
  {
    method: 'GET',
    path: '/endpoints/{endpointId}',
    scope: 'endpoint:read',
    summary: 'Get an endpoint',
    query: [include],
    deniedStatus: 404,
    etag: true,
    handler: getOne,
  },
  ...metadataRoutes,
];
