import type { Request, Response } from 'express';
import { notModified } from '../../server/conditional.js';
import { badRequest, notFound } from '../../server/errors.js';
import { locationOf } from '../../server/location.js';
import { paginate } from '../../server/pagination.js';
import { pathParam, queryList, queryString } from '../../server/params.js';
import type { Route } from '../../server/service.js';
import { isDeepStrictEqual } from 'node:util';
import { endpointsInListingOrder, endpointsOfApplication, ENDPOINTS, findEndpoint, isMetadataObject, listingOrder, registerEndpoint, type Endpoint } from './endpoints.js';
import { ENDPOINT_FILTERS, filterMatches, findFilter, matchingFilterIds } from './filters.js';

type Include = 'metadata' | 'filters';

function includes(req: Request): Set<Include> {
  const wanted = queryList(req, 'include') ?? [];
  const wrong = wanted.find((w) => w !== 'metadata' && w !== 'filters');
  if (wrong) throw badRequest(`Query parameter include must be metadata, filters or both (comma-separated); got "${wrong}".`);
  return new Set(wanted as Include[]);
}

function present(req: Request, endpoint: Endpoint, include: Set<Include>) {
  return {
    endpointId: endpoint.endpointId,
    createdDate: endpoint.createdDate,
    appVersion: endpoint.appVersion,
    ...(include.has('metadata') ? { metadata: endpoint.metadata, metadataUpdatedDate: endpoint.metadataUpdatedDate ?? endpoint.createdDate } : {}),
    filters: include.has('filters') ? matchingFilterIds(req.ctx, endpoint.appName, endpoint.metadata) : [],
  };
}

async function register(req: Request, res: Response) {
  const endpoint = await registerEndpoint(req.ctx, req.principal.tenantId, req.body);
  res.status(201).location(locationOf(req, 'endpoints', endpoint.endpointId)).json({ token: endpoint.token, status: endpoint.tokenStatus });
}

function metadataFilter(req: Request): [string, unknown] | undefined {
  const raw = queryString(req, 'metadataFilter');
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest(`Query parameter metadataFilter must be a URL-encoded JSON object with one key, like {"model":"m1"}; got ${raw}.`);
  }
  if (!isMetadataObject(parsed) || Object.keys(parsed).length !== 1) {
    throw badRequest('Query parameter metadataFilter must be a JSON object with exactly one key-value pair.');
  }
  return Object.entries(parsed)[0];
}

function list(req: Request, res: Response) {
  const ctx = req.ctx;
  const include = includes(req);
  const ids = queryList(req, 'endpointId');
  const applicationName = queryString(req, 'applicationName');
  const versionName = queryString(req, 'applicationVersionName');
  const pair = metadataFilter(req);
  const filterIds = queryList(req, 'filterId') ?? [];
  const tenantId = req.principal.tenantId;
  if (notModified(req, res, { revision: `${ctx.store.rev(ENDPOINTS)}.${ctx.store.rev(ENDPOINT_FILTERS)}` })) return;

  const filters = filterIds.map((id) => findFilter(ctx, tenantId, id).filter((f) => f.status === 'ACTIVE'));
  if (!ids && !applicationName && !versionName && !pair && filters.length === 0) {
    const page = paginate(req, endpointsInListingOrder(ctx, tenantId), 100);
    res.json({ totalElements: page.total, content: page.items.map((e) => present(req, e, include)) });
    return;
  }
  let candidates: Iterable<Endpoint>;
  if (ids) candidates = ids.map((id) => findEndpoint(ctx, tenantId, id)).filter((e): e is Endpoint => e !== undefined);
  else if (applicationName) candidates = endpointsOfApplication(ctx, applicationName);
  else candidates = endpointsInListingOrder(ctx, tenantId);

  const selected: Endpoint[] = [];
  for (const e of candidates) {
    if (e.tenantId !== tenantId) continue;
    if (applicationName && e.appName !== applicationName) continue;
    if (versionName && e.appVersion.name !== versionName) continue;
    if (pair && !(Object.hasOwn(e.metadata, pair[0]) && isDeepStrictEqual(e.metadata[pair[0]], pair[1]))) continue;
    if (!filters.every((sameId) => sameId.some((f) => f.applicationName === e.appName && filterMatches(f, e.metadata)))) continue;
    selected.push(e);
  }
  if (!ids && applicationName) selected.sort(listingOrder);
  const page = paginate(req, selected, 100);
  res.json({ totalElements: page.total, content: page.items.map((e) => present(req, e, include)) });
}

function getOne(req: Request, res: Response) {
  const include = includes(req);
  const endpoint = findEndpoint(req.ctx, req.principal.tenantId, pathParam(req, 'endpointId'));
  if (!endpoint) throw notFound(`There is no endpoint ${req.params.endpointId}.`);
  const revision = `${req.ctx.store.rev(ENDPOINTS, endpoint.endpointId)}${include.has('filters') ? `.${req.ctx.store.rev(ENDPOINT_FILTERS)}` : ''}`;
  if (notModified(req, res, { revision, lastModified: endpoint.updatedDate })) return;
  res.json(present(req, endpoint, include));
}

export const routes: Route[] = [
  { method: 'POST', path: '/endpoints', scope: 'application:endpoint:create', summary: 'Register an endpoint', handler: register },
  { method: 'GET', path: '/endpoints', scope: 'endpoint:read', summary: 'List endpoints', handler: list },
  { method: 'GET', path: '/endpoints/{endpointId}', scope: 'endpoint:read', summary: 'Get an endpoint', deniedStatus: 404, handler: getOne },
];

