import type { Request, Response } from 'express';
import { route, type Route } from '../../contract.js';
import { checkPreconditions, etagOf, notModified } from '../../server/conditional.js';
import { badRequest } from '../../server/errors.js';
import { pathParam } from '../../server/params.js';
import { ENDPOINTS, requireEndpoint, writeMetadata, type Endpoint } from './endpoints.js';
import { checkMetadataKey, deleteMetadataValue, metadataValue, setMetadataValue } from './metadata.js';
import { metadataObjectSchema } from './schemas.js';

/**
 * The metadata operations of the endpoint register (additions: the platform's web-dashboard tutorial saves a location
 * with `PUT .../metadata/location`). Their `ETag` is the endpoint's: `GET /endpoints/{endpointId}` answers the same.
 */
const PATH = '/endpoints/{endpointId}/metadata';

const endpointOf = (req: Request) => requireEndpoint(req.ctx, req.principal.tenantId, pathParam(req, 'endpointId'));
const keyOf = (req: Request) => checkMetadataKey(pathParam(req, 'key'));
const validators = (req: Request, endpoint: Endpoint) => ({
  revision: ENDPOINTS.rev(req.ctx, endpoint.endpointId),
  lastModified: endpoint.updatedDate,
});

/** A read: the endpoint's `ETag` and `Last-Modified`, 304 when the client's copy is current. */
function read(answer: (req: Request, endpoint: Endpoint) => unknown) {
  return (req: Request, res: Response) => {
    const endpoint = endpointOf(req);
    const value = answer(req, endpoint);
    if (notModified(req, res, validators(req, endpoint))) return;
    res.json(value);
  };
}

/** A write: `If-Match` / `If-Unmodified-Since` first (412, nothing written), then the endpoint's new `ETag`. */
function write(
  change: (req: Request, endpoint: Endpoint) => Promise<Endpoint>,
  answer: 'metadata' | 'none' = 'metadata',
) {
  return async (req: Request, res: Response) => {
    const before = endpointOf(req);
    checkPreconditions(req, validators(req, before));
    const after = await change(req, before);
    res.setHeader('ETag', etagOf(ENDPOINTS.rev(req.ctx, after.endpointId)));
    if (answer === 'none') res.status(204).end();
    else res.json(after.metadata);
  };
}

function valueOf(req: Request): unknown {
  if (req.body === undefined)
    throw badRequest('The request body is missing: it is the value of the key, any JSON ("Kyiv", 42, {...}).');
  return req.body;
}

const common = { etag: true, addition: true } as const;

export const metadataRoutes: Route[] = [
  {
    ...common,
    method: 'GET',
    path: PATH,
    scope: 'endpoint:read',
    summary: "Get an endpoint's metadata",
    handler: read((_req, endpoint) => endpoint.metadata),
  },
  {
    ...common,
    method: 'GET',
    path: `${PATH}/keys`,
    scope: 'endpoint:read',
    summary: "List the keys of an endpoint's metadata",
    handler: read((_req, endpoint) => Object.keys(endpoint.metadata)),
  },
  {
    ...common,
    method: 'GET',
    path: `${PATH}/{key}`,
    scope: 'endpoint:read',
    summary: 'Get the value of one metadata key',
    handler: read((req, endpoint) => metadataValue(endpoint, keyOf(req))),
  },
  route({
    ...common,
    method: 'PUT',
    path: PATH,
    scope: 'endpoint:update',
    summary: "Replace an endpoint's metadata",
    bodySchema: metadataObjectSchema,
    handler: write((req, endpoint) => writeMetadata(req.ctx, endpoint, req.body as Record<string, unknown>, false)),
  }),
  route({
    ...common,
    method: 'PATCH',
    path: PATH,
    scope: 'endpoint:update',
    summary: "Merge keys into an endpoint's metadata",
    bodySchema: metadataObjectSchema,
    handler: write((req, endpoint) => writeMetadata(req.ctx, endpoint, req.body as Record<string, unknown>, true)),
  }),
  {
    ...common,
    method: 'PUT',
    path: `${PATH}/{key}`,
    scope: 'endpoint:update',
    summary: 'Set the value of one metadata key (the body is the value: any JSON)',
    handler: write((req, endpoint) => setMetadataValue(req.ctx, endpoint, keyOf(req), valueOf(req))),
  },
  {
    ...common,
    method: 'DELETE',
    path: `${PATH}/{key}`,
    scope: 'endpoint:update',
    summary: 'Delete one metadata key',
    successStatus: 204,
    handler: write((req, endpoint) => deleteMetadataValue(req.ctx, endpoint, keyOf(req)), 'none'),
  },
];
