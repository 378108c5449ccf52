import type { Request } from 'express';
import type { EmuContext } from '../context.js';
import type { Route } from '../contract.js';
import { connectionLogin, deviceConnections, type DeviceConnection } from '../gateway/index.js';
import { badRequest, notFound } from '../server/errors.js';
import { pageParams, paginate } from '../server/pagination.js';
import { queryString } from '../server/params.js';
import { endpointQueryOf, listEndpoints } from '../services/epr/listing.js';
import { findTenant } from '../services/tenant-manager/tenants.js';

export const ONLINE_PAGE_SIZE = 50;

/** A connection with how it logged in (`login`: TLS or not, and the credential), while it is online. */
function withLogin(ctx: EmuContext, connection: DeviceConnection) {
  const login = connection.online ? connectionLogin(ctx, connection.endpointId) : undefined;
  return login ? { ...connection, login } : connection;
}

/**
 * `GET /_emu/connections/online`: the tenant's endpoints online now, a page at a time (`offset`, `limit`), selected
 * as the endpoint register's list selects them and in its order, each with its connection. The dashboard's "online
 * only" list: no endpoint id of the online devices travels in a query string.
 */
export function onlineEndpoints(ctx: EmuContext, req: Request) {
  const given = queryString(req, 'tenantId');
  if (given !== undefined && !findTenant(ctx, given)) throw notFound(`There is no tenant "${given}".`);
  const tenantId = given ?? ctx.defaultTenantId();
  const query = endpointQueryOf(req);
  const online = new Map<string, DeviceConnection>(
    deviceConnections(ctx)
      .filter((c) => c.online)
      .map((c) => [c.endpointId, c]),
  );
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
      connection: withLogin(ctx, online.get(e.endpointId)!),
    })),
  };
}

/** At most this many ids in `GET /_emu/connections?endpointId=`: a page of the endpoints list, with room. */
export const CONNECTION_IDS_LIMIT = 500;

/** Every connection state, or those of the endpoints named (the dashboard asks for the page it shows). */
function connectionsOf(ctx: EmuContext, endpointIds: string | undefined): DeviceConnection[] {
  const all = deviceConnections(ctx);
  if (endpointIds === undefined) return all;
  const wanted = new Set(endpointIds.split(',').filter(Boolean));
  if (wanted.size > CONNECTION_IDS_LIMIT)
    throw badRequest(`endpointId names ${wanted.size} endpoints; at most ${CONNECTION_IDS_LIMIT} at a time.`);
  return all.filter((c) => wanted.has(c.endpointId));
}

/**
 * The endpoints' online state, mounted at `/_emu`:
 * - `GET /_emu/connections`: every endpoint's connection state (online, last seen), or those of `?endpointId=a,b`.
 * - `GET /_emu/connections/online`: the endpoints online now, a page at a time.
 */
export const connectionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/connections',
    scope: null,
    summary: "The endpoints' connection state",
    query: [{ name: 'endpointId', description: 'comma-separated endpoint ids: only their states (a page of them)' }],
    handler: (req, res) =>
      res.json(connectionsOf(req.ctx, queryString(req, 'endpointId')).map((c) => withLogin(req.ctx, c))),
  },
  {
    method: 'GET',
    path: '/connections/online',
    scope: null,
    summary: 'The endpoints online now',
    query: [{ name: 'tenantId' }, ...pageParams(ONLINE_PAGE_SIZE)],
    paging: 'content',
    handler: (req, res) => res.json(onlineEndpoints(req.ctx, req)),
  },
];
