import type { Request, Response } from 'express';
import { badRequest, notFound } from '../../server/errors.js';
import { sendJsonArray } from '../../server/json-stream.js';
import { pathParam, queryDate, queryEnum, queryList, requiredQuery } from '../../server/params.js';
import { route, type BodyRequest, type QueryParam, type Route } from '../../contract.js';
import {
  findTenantVersion,
  listApplications,
  requireApplication,
  type Application,
} from '../app-manager/applications.js';
import { endpointsInListingOrder, findEndpoint } from '../epr/endpoints.js';
import { definitionsNamed, definitionsOf, presentDefinition } from './definitions.js';
import { dataChunkTexts, lastPoint, type DataPoint } from './points.js';
import { timeSeriesDataSchema, type TimeSeriesBody } from './schemas.js';
import { writeTimeSeriesData } from './writes.js';
import { userKeyed } from '../../store/index.js';

/** How many data points one chunk of `GET .../time-series/data` holds at most (docs/services/time-series.md). */
export const CHUNK_POINTS = 1000;

function applicationOf(req: Request): Application {
  const name = pathParam(req, 'applicationName');
  return requireApplication(req.ctx, req.principal.tenantId, name);
}

function seriesNamesOf(req: Request, app: Application): string[] {
  const names = queryList(req, 'timeSeriesName');
  if (!names || names.length === 0)
    throw badRequest('Query parameter timeSeriesName is required (one or more series names, comma-separated).');
  const unique = [...new Set(names)];
  definitionsNamed(req.ctx, app.name, unique);
  return unique;
}

/**
 * The endpoints asked for (each must be the application's: 404 otherwise), or all of the application's in listing
 * order.
 */
function endpointIdsOf(req: Request, app: Application): { ids: string[]; listed: boolean } {
  const listed = queryList(req, 'endpointId');
  if (listed && listed.length > 0) {
    const ids = [...new Set(listed)];
    const outside = ids.filter((id) => findEndpoint(req.ctx, req.principal.tenantId, id)?.appName !== app.name);
    if (outside.length > 0) throw notFound(`No endpoint ${outside.join(', ')} in application ${app.name}.`);
    return { ids, listed: true };
  }
  const ids = endpointsInListingOrder(req.ctx, req.principal.tenantId, app.name).map((e) => e.endpointId);
  return { ids, listed: false };
}

function requiredDate(req: Request, name: string): number {
  requiredQuery(req, name);
  return queryDate(req, name)!.getTime();
}

function config(req: Request, res: Response) {
  const names = queryList(req, 'applicationNames');
  const apps = names?.length
    ? [...new Set(names)].map((name) => requireApplication(req.ctx, req.principal.tenantId, name))
    : listApplications(req.ctx, req.principal.tenantId);
  res.json(Object.fromEntries(apps.map((app) => [app.name, definitionsOf(req.ctx, app.name).map(presentDefinition)])));
}

/**
 * Listed endpoints always appear (a series without points is `[]`); without a list, those with a point in some named
 * series.
 */
function last(req: Request, res: Response) {
  const app = applicationOf(req);
  const names = seriesNamesOf(req, app);
  const before = queryDate(req, 'beforeDate')?.getTime();
  const { ids, listed } = endpointIdsOf(req, app);
  const answer = userKeyed<Record<string, DataPoint[]>>();
  for (const endpointId of ids) {
    let found = false;
    const bySeries = userKeyed<DataPoint[]>();
    for (const name of names) {
      const point = lastPoint(req.ctx, endpointId, name, before);
      bySeries[name] = point ? [point] : [];
      found ||= point !== undefined;
    }
    if (listed || found) answer[endpointId] = bySeries;
  }
  res.json(answer);
}

async function data(req: Request, res: Response) {
  const app = applicationOf(req);
  const names = seriesNamesOf(req, app);
  const from = requiredDate(req, 'fromDate');
  const to = requiredDate(req, 'toDate');
  if (from > to) throw badRequest('fromDate must not be after toDate.');
  const includeTime = queryEnum(req, 'includeTime', ['from', 'to', 'both', 'none'] as const) ?? 'none';
  const descending = (queryEnum(req, 'sort', ['ASC', 'DESC'] as const) ?? 'ASC') === 'DESC';
  const { ids } = endpointIdsOf(req, app);
  const range = {
    from,
    to,
    includeFrom: includeTime === 'from' || includeTime === 'both',
    includeTo: includeTime === 'to' || includeTime === 'both',
  };
  await sendJsonArray(res, dataChunkTexts(req.ctx, ids, names, range, descending, CHUNK_POINTS));
}

async function putData(req: BodyRequest<TimeSeriesBody>, res: Response) {
  const app = applicationOf(req);
  await writeTimeSeriesData(req.ctx, { tenantId: req.principal.tenantId, applicationName: app.name }, req.body);
  res.status(204).end();
}

async function putVersionData(req: BodyRequest<TimeSeriesBody>, res: Response) {
  const name = pathParam(req, 'appVersionName');
  const version = findTenantVersion(req.ctx, req.principal.tenantId, name);
  if (!version) throw notFound(`There is no application version ${name}.`);
  await writeTimeSeriesData(
    req.ctx,
    { tenantId: req.principal.tenantId, applicationName: version.appName, appVersionName: version.name },
    req.body,
  );
  res.status(204).end();
}

const endpointIds: QueryParam = {
  name: 'endpointId',
  description: 'one or more, comma-separated; default all of the application',
};
const seriesNames: QueryParam = { name: 'timeSeriesName', required: true, description: 'one or more, comma-separated' };
const dateTime = { type: 'string', format: 'date-time' };

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/time-series/config',
    scope: 'application:timeseries-config:read',
    summary: 'Time series definitions per application',
    query: [{ name: 'applicationNames', description: 'comma-separated; default all' }],
    handler: config,
  },
  {
    method: 'GET',
    path: '/applications/{applicationName}/time-series/last',
    scope: 'endpoint:read',
    summary: 'The newest data point of each series and endpoint',
    query: [
      endpointIds,
      seriesNames,
      { name: 'beforeDate', description: 'newest point strictly before this time (first revision)', schema: dateTime },
    ],
    handler: last,
  },
  {
    method: 'GET',
    path: '/applications/{applicationName}/time-series/data',
    scope: 'endpoint:read',
    summary: 'Data points in a time window, in chunks',
    query: [
      seriesNames,
      endpointIds,
      { name: 'fromDate', required: true, schema: dateTime },
      { name: 'toDate', required: true, schema: dateTime },
      {
        name: 'includeTime',
        description: 'inclusive bounds: from, to, both or none (default)',
        schema: { enum: ['from', 'to', 'both', 'none'] },
      },
      { name: 'sort', description: 'ASC (default) or DESC', schema: { enum: ['ASC', 'DESC'] } },
    ],
    handler: data,
  },
  route({
    method: 'PUT',
    path: '/applications/{applicationName}/time-series/data',
    scope: 'endpoint:update',
    summary: 'Write data points (deprecated since v1.2.0)',
    deprecated: true,
    bodySchema: timeSeriesDataSchema,
    successStatus: 204,
    handler: putData,
  }),
  route({
    method: 'PUT',
    path: '/app-versions/{appVersionName}/time-series/data',
    scope: 'endpoint:update',
    summary: 'Write data points of endpoints of an application version',
    addition: true,
    bodySchema: timeSeriesDataSchema,
    successStatus: 204,
    handler: putVersionData,
  }),
];
