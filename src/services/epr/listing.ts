import { isDeepStrictEqual } from 'node:util';
import type { EmuContext } from '../../context.js';
import type { Request } from 'express';
import { badRequest } from '../../server/errors.js';
import { queryList, queryString } from '../../server/params.js';
import { isPlainObject } from '../../store/index.js';
import { endpointsInListingOrder, findEndpoint, type Endpoint } from './endpoints.js';
import { filterMatches, findFilter } from './filters.js';

/** What `GET /endpoints` may select by; every given criterion must hold. */
export interface EndpointQuery {
  endpointIds?: string[];
  applicationName?: string;
  applicationVersionName?: string;
  /** One metadata key and the value it must equal. */
  metadata?: [string, unknown];
  /** Ids of endpoint filters; an endpoint must match an active filter of each id. */
  filterIds?: string[];
}

/** `metadataFilter`: a URL-encoded JSON object with one key and the value it must equal. */
function metadataFilter(req: Request): [string, unknown] | undefined {
  const raw = queryString(req, 'metadataFilter');
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest(
      `Query parameter metadataFilter must be a URL-encoded JSON object with one key, like {"model":"m1"}; got ${raw}.`,
    );
  }
  if (!isPlainObject(parsed) || Object.keys(parsed).length !== 1) {
    throw badRequest('Query parameter metadataFilter must be a JSON object with exactly one key-value pair.');
  }
  return Object.entries(parsed)[0];
}

/** The query parameters of `GET /endpoints` as a query (also read by the dashboard's list of online endpoints). */
export function endpointQueryOf(req: Request): EndpointQuery {
  return {
    endpointIds: queryList(req, 'endpointId'),
    applicationName: queryString(req, 'applicationName'),
    applicationVersionName: queryString(req, 'applicationVersionName'),
    metadata: metadataFilter(req),
    filterIds: queryList(req, 'filterId'),
  };
}

/** The tenant's endpoints that hold to the query: in listing order, or in the order of `endpointIds` when given. */
export function listEndpoints(ctx: EmuContext, tenantId: string, query: EndpointQuery): readonly Endpoint[] {
  const { endpointIds, applicationName, applicationVersionName, metadata } = query;
  const filters = (query.filterIds ?? []).map((id) =>
    findFilter(ctx, tenantId, id).filter((f) => f.status === 'ACTIVE'),
  );
  if (!endpointIds && !applicationVersionName && !metadata && filters.length === 0) {
    return endpointsInListingOrder(ctx, tenantId, applicationName);
  }
  let candidates: Iterable<Endpoint>;
  if (endpointIds)
    candidates = endpointIds.map((id) => findEndpoint(ctx, tenantId, id)).filter((e): e is Endpoint => e !== undefined);
  else candidates = endpointsInListingOrder(ctx, tenantId, applicationName);

  const selected: Endpoint[] = [];
  for (const e of candidates) {
    if (e.tenantId !== tenantId) continue;
    if (applicationName && e.appName !== applicationName) continue;
    if (applicationVersionName && e.appVersion.name !== applicationVersionName) continue;
    if (
      metadata &&
      !(Object.hasOwn(e.metadata, metadata[0]) && isDeepStrictEqual(e.metadata[metadata[0]], metadata[1]))
    )
      continue;
    if (!filters.every((sameId) => sameId.some((f) => f.applicationName === e.appName && filterMatches(f, e.metadata))))
      continue;
    selected.push(e);
  }
  return selected;
}
