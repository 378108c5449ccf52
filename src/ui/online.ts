import type { Request } from 'express';
import type { EmuContext } from '../context.js';
import { deviceConnections, type DeviceConnection } from '../gateway/index.js';
import { badRequest, notFound } from '../server/errors.js';
import { paginate } from '../server/pagination.js';
import { queryList, queryString } from '../server/params.js';
import { isMetadataObject } from '../services/epr/endpoints.js';
import { listEndpoints } from '../services/epr/listing.js';
import { getTenant } from '../services/tenant-manager/tenants.js';

export const ONLINE_PAGE_SIZE = 50;

/** `metadataFilter` as the endpoint register reads it: a JSON object with one key and the value it must equal. */
function metadataCriterion(req: Request): [string, unknown] | undefined {
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

/**
 * `GET /_emu/connections/online`: the tenant's endpoints online now, a page at a time (`offset`, `limit`), selected
 * as the endpoint register's list selects them and in its order, each with its connection. The dashboard's "online
 * only" list: no endpoint id of the online devices travels in a query string.
 */
export function onlineEndpoints(ctx: EmuContext, req: Request) {
  const given = queryString(req, 'tenantId');
  if (given !== undefined && !getTenant(ctx, given)) throw notFound(`There is no tenant "${given}".`);
  const tenantId = given ?? ctx.defaultTenantId();
  const query = {
    endpointIds: queryList(req, 'endpointId'),
    applicationName: queryString(req, 'applicationName'),
    applicationVersionName: queryString(req, 'applicationVersionName'),
    metadata: metadataCriterion(req),
  };
  const online = new Map<string, DeviceConnection>(deviceConnections(ctx).filter((c) => c.online).map((c) => [c.endpointId, c]));
  const matching = online.size === 0 ? [] : listEndpoints(ctx, tenantId, query).filter((e) => online.has(e.endpointId));
  const page = paginate(req, matching, ONLINE_PAGE_SIZE);
  return {
    totalElements: page.total,
    content: page.items.map((e) => ({
      endpointId: e.endpointId,
      createdDate: e.createdDate,
      appVersion: e.appVersion,
      metadata: e.metadata,
      metadataUpdatedDate: e.metadataUpdatedDate ?? e.createdDate,
      connection: online.get(e.endpointId),
    })),
  };
}
