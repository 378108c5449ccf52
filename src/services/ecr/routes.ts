import type { Request, Response } from 'express';
import { checkPreconditions, etagOf, notModified } from '../../server/conditional.js';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { notFound } from '../../server/errors.js';
import { locationOf } from '../../server/location.js';
import { pathParam, queryString } from '../../server/params.js';
import type { QueryParam } from '../../contract.js';
import { checkConfigName } from './config-name.js';
import { responseShape } from './compat.js';
import { checkEndpointId } from './endpoint-id.js';
import { configurationListing } from './listing.js';
import { contentTypeHeader, jsonPayload, payloadBytes, payloadOf } from './payload.js';
import { requireTenantVersion } from '../app-manager/applications.js';
import { requireEndpoint } from '../epr/endpoints.js';
import {
  findDefaultConfig,
  findEndpointConfig,
  presentRecord,
  requireVersionOfEndpoint,
  validatorsOf,
  type ConfigRecord,
} from './records.js';
import {
  deleteDefaultConfig,
  deleteEndpointConfig,
  putDefaultConfig,
  putEndpointConfig,
  writeBatch,
  writeByFilter,
  type Precondition,
} from './writes.js';
import { batchSchema, type BatchWrite } from './schemas.js';

const ONE = '/endpoints/{endpointId}/app-versions/{appVersionName}';
const DEFAULT = '/app-versions/{appVersionName}';

/** `?configName=`: a named configuration (7/CMP use case 3) instead of the default one. */
const configNameOf = (req: Request): string | undefined => {
  const name = queryString(req, 'configName');
  return name === undefined ? undefined : checkConfigName(name);
};
const named = (configName: string | undefined) => (configName === undefined ? '' : ` named ${configName}`);

const endpointOf = (req: Request) =>
  requireEndpoint(req.ctx, req.principal.tenantId, checkEndpointId(pathParam(req, 'endpointId')));
const preconditions =
  (req: Request): Precondition =>
  (current) =>
    checkPreconditions(req, validatorsOf(current));

/** The configuration in the configured shape: the record (envelope), or the stored payload with its type (raw). */
function sendConfiguration(req: Request, res: Response, record: ConfigRecord | undefined, missing: string) {
  if (!record) throw notFound(missing);
  if (notModified(req, res, validatorsOf(record)!)) return;
  if (responseShape(req.ctx) === 'envelope') {
    res.json(presentRecord(record));
    return;
  }
  res.setHeader('Content-Type', contentTypeHeader(record));
  res.send(payloadBytes(record));
}

async function putOne(req: Request, res: Response) {
  const endpoint = endpointOf(req);
  const version = requireVersionOfEndpoint(req.ctx, endpoint, pathParam(req, 'appVersionName'));
  const configName = configNameOf(req);
  const { record, created } = await putEndpointConfig(
    req.ctx,
    endpoint,
    version,
    payloadOf(req),
    preconditions(req),
    configName,
  );
  res.setHeader('ETag', etagOf(record.configId));
  if (responseShape(req.ctx) === 'envelope') res.status(200).json(presentRecord(record));
  else if (created) {
    const location = locationOf(req, 'endpoints', endpoint.endpointId, 'app-versions', version.name);
    res
      .status(201)
      .location(configName === undefined ? location : `${location}?configName=${configName}`)
      .end();
  } else res.status(204).end();
}

function getOne(req: Request, res: Response) {
  const endpoint = endpointOf(req);
  const version = requireVersionOfEndpoint(req.ctx, endpoint, pathParam(req, 'appVersionName'));
  const configName = configNameOf(req);
  const record = findEndpointConfig(req.ctx, endpoint.endpointId, version.name, configName);
  sendConfiguration(
    req,
    res,
    record,
    `Endpoint ${endpoint.endpointId} has no configuration${named(configName)} of its own for application ` +
      `version ${version.name}.`,
  );
}

async function deleteOne(req: Request, res: Response) {
  const endpoint = endpointOf(req);
  const version = requireVersionOfEndpoint(req.ctx, endpoint, pathParam(req, 'appVersionName'));
  await deleteEndpointConfig(req.ctx, endpoint, version, preconditions(req), configNameOf(req));
  res.status(204).end();
}

function listOfEndpoint(req: Request, res: Response) {
  res.json(configurationListing(req.ctx, endpointOf(req)));
}

const presentWritten = (records: ConfigRecord[]) =>
  records.map((r) => ({
    endpointId: r.endpointId,
    appVersionName: r.appVersionName,
    configId: r.configId,
    updatedDate: r.updatedDate,
  }));

async function batch(req: BodyRequest<BatchWrite>, res: Response) {
  const { configPayload, endpoints } = req.body;
  res.json(presentWritten(await writeBatch(req.ctx, req.principal.tenantId, endpoints, jsonPayload(configPayload))));
}

async function byFilter(req: Request, res: Response) {
  res.json(
    presentWritten(await writeByFilter(req.ctx, req.principal.tenantId, pathParam(req, 'filterId'), payloadOf(req))),
  );
}

const versionOf = (req: Request) =>
  requireTenantVersion(req.ctx, req.principal.tenantId, pathParam(req, 'appVersionName'));

async function putDefault(req: Request, res: Response) {
  const record = await putDefaultConfig(req.ctx, versionOf(req), payloadOf(req), preconditions(req), configNameOf(req));
  res.setHeader('ETag', etagOf(record.configId));
  res.json(presentRecord(record));
}

function getDefault(req: Request, res: Response) {
  const version = versionOf(req);
  const configName = configNameOf(req);
  sendConfiguration(
    req,
    res,
    findDefaultConfig(req.ctx, version.name, configName),
    `Application version ${version.name} has no default configuration${named(configName)}.`,
  );
}

async function deleteDefault(req: Request, res: Response) {
  await deleteDefaultConfig(req.ctx, versionOf(req), preconditions(req), configNameOf(req));
  res.status(204).end();
}

const configNameQuery: QueryParam[] = [
  {
    name: 'configName',
    description:
      'a named configuration (7/CMP use case 3, cmx config/json/<configName>) instead of the default one; ' +
      'letters, digits, _ and -, up to 64, not only digits, not status or error',
    schema: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
    addition: true,
  },
];

export const routes: Route[] = [
  {
    method: 'PUT',
    path: ONE,
    scope: 'endpoint:update',
    summary: "Set an endpoint's configuration for an application version",
    query: configNameQuery,
    body: 'raw',
    deniedStatus: 404,
    location: true,
    etag: true,
    handler: putOne,
  },
  {
    method: 'GET',
    path: ONE,
    scope: 'endpoint:read',
    summary: "Get an endpoint's configuration for an application version",
    query: configNameQuery,
    deniedStatus: 404,
    etag: true,
    handler: getOne,
  },
  {
    method: 'DELETE',
    path: ONE,
    scope: 'endpoint:delete',
    summary: "Delete an endpoint's configuration for an application version",
    query: configNameQuery,
    successStatus: 204,
    etag: true,
    handler: deleteOne,
  },
  {
    method: 'GET',
    path: '/endpoints/{endpointId}',
    scope: 'endpoint:read',
    summary: 'List the configurations of an endpoint',
    handler: listOfEndpoint,
  },
  route({
    method: 'PUT',
    path: '/endpoints/batch',
    scope: 'endpoint:update',
    summary: 'Set one configuration for many endpoints',
    bodySchema: batchSchema,
    handler: batch,
  }),
  {
    method: 'PUT',
    path: '/endpoints/filters/{filterId}',
    scope: 'endpoint:update',
    summary: 'Set one configuration for the endpoints an endpoint filter matches',
    body: 'raw',
    handler: byFilter,
  },
  {
    method: 'PUT',
    path: DEFAULT,
    scope: 'application:endpoint-config:update',
    summary: 'Set the default configuration of an application version',
    query: configNameQuery,
    body: 'raw',
    etag: true,
    handler: putDefault,
  },
  {
    method: 'GET',
    path: DEFAULT,
    scope: 'application:endpoint-config:read',
    summary: 'Get the default configuration of an application version',
    query: configNameQuery,
    etag: true,
    handler: getDefault,
  },
  {
    method: 'DELETE',
    path: DEFAULT,
    scope: 'application:endpoint-config:update',
    summary: 'Delete the default configuration of an application version (an emulator addition)',
    query: configNameQuery,
    addition: true,
    etag: true,
    successStatus: 204,
    handler: deleteDefault,
  },
];
