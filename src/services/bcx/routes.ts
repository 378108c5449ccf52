import type { Request, Response } from 'express';
import { badRequest, HttpError, notFound } from '../../server/errors.js';
import { locationOf } from '../../server/location.js';
import { pageParams, paginate } from '../../server/pagination.js';
import { pathParam, queryDate, queryEnum, queryList, queryString, requiredQuery } from '../../server/params.js';
import type { QueryParam, Route } from '../../contract.js';
import { requireApplication, type Application } from '../app-manager/applications.js';
import { findEndpoint, type Endpoint } from '../epr/endpoints.js';
import { sendPayload } from './download.js';
import {
  blobsOfApplication,
  deleteBlob,
  filesOfApplication,
  findBlob,
  findFile,
  newestBlob,
  storeBlob,
  storeFile,
  type BlobRecord,
  type FileRecord,
  type PayloadQuery,
} from './payloads.js';
import { uploaderOf } from './upload-tokens.js';

const LIST_LIMIT = 20;

function applicationOf(req: Request): Application {
  return requireApplication(req.ctx, req.principal.tenantId, pathParam(req, 'appName'));
}

function endpointOf(req: Request): Endpoint {
  const app = applicationOf(req);
  const endpointId = pathParam(req, 'endpointId');
  const endpoint = findEndpoint(req.ctx, req.principal.tenantId, endpointId);
  if (endpoint?.appName !== app.name) throw notFound(`There is no endpoint ${endpointId} in application ${app.name}.`);
  return endpoint;
}

/** A file name can never name a path: no `..`, `/`, `\` or NUL, at most 255 bytes. */
function filenameOf(req: Request): string {
  const name = pathParam(req, 'filename');
  if (name === '' || name === '.' || name.includes('..') || /[/\\\0]/.test(name) || Buffer.byteLength(name) > 255) {
    throw badRequest(
      `Invalid file name ${JSON.stringify(name.slice(0, 300))}: a file name is at most 255 bytes, without ` +
        `"..", "/", "\\" or NUL.`,
    );
  }
  return name;
}

const payloadUrl = (req: Request, p: { appName: string; endpointId: string }, ...rest: string[]) =>
  locationOf(req, 'applications', p.appName, 'endpoints', p.endpointId, ...rest);

const presentBlob = (req: Request, b: BlobRecord) => ({
  id: b.id,
  name: b.name,
  url: payloadUrl(req, b, 'binary-data', b.id, 'data'),
  size: b.size,
  createdDate: b.createdDate,
});

const presentFile = (req: Request, f: FileRecord) => ({
  name: f.name,
  endpointId: f.endpointId,
  url: payloadUrl(req, f, 'files', f.name, 'data'),
  size: f.size,
  createdDate: f.createdDate,
  updatedDate: f.updatedDate,
});

function payloadQuery(req: Request, options: { datesRequired?: boolean; byName?: boolean } = {}): PayloadQuery {
  if (options.datesRequired) ['fromDate', 'toDate'].forEach((name) => requiredQuery(req, name));
  const from = queryDate(req, 'fromDate')?.getTime();
  const to = queryDate(req, 'toDate')?.getTime();
  if (from !== undefined && to !== undefined && from > to) throw badRequest('fromDate must not be after toDate.');
  return {
    endpointIds: queryList(req, 'endpointId'),
    name: options.byName ? queryString(req, 'name') : undefined,
    from,
    to,
    descending: queryEnum(req, 'sort', ['ASC', 'DESC'] as const) === 'DESC',
  };
}

/** Refuses a body declared too large before reading it; a body that turns out too large is refused while streaming. */
function checkDeclaredSize(req: Request): void {
  const declared = Number(req.headers['content-length']);
  const limit = req.ctx.config.uploadLimit;
  if (declared > limit)
    throw new HttpError(
      413,
      `The upload of ${declared} bytes is larger than the limit of ${limit} bytes (flag --upload-limit); ` +
        `nothing was kept.`,
    );
}

/** Runs an upload; a client that went away mid-upload gets no answer (and nothing was kept). */
async function receiving(req: Request, upload: () => Promise<void>): Promise<void> {
  try {
    await upload();
  } catch (err) {
    // A request whose connection is gone has no socket left, or a destroyed one.
    const clientGone = !(req.socket as Request['socket'] | null) || req.socket.destroyed;
    if (err instanceof HttpError || !clientGone) throw err;
  }
}

async function uploadBlob(req: Request, res: Response) {
  const endpoint = uploaderOf(req.ctx, req.get('x-auth-token'));
  const name = queryString(req, 'name') ?? '';
  checkDeclaredSize(req);
  await receiving(req, async () => {
    const blob = await storeBlob(req.ctx, endpoint, name, req);
    res
      .status(201)
      .location(payloadUrl(req, blob, 'binary-data', blob.id))
      .json(presentBlob(req, blob));
  });
}

async function uploadFile(req: Request, res: Response) {
  const endpoint = uploaderOf(req.ctx, req.get('x-auth-token'));
  const name = filenameOf(req);
  checkDeclaredSize(req);
  await receiving(req, async () => {
    await storeFile(req.ctx, endpoint, name, req);
    res.status(204).end();
  });
}

function listFiles(req: Request, res: Response) {
  const app = applicationOf(req);
  const page = paginate(
    req,
    filesOfApplication(req.ctx, req.principal.tenantId, app.name, payloadQuery(req, { byName: true })),
    LIST_LIMIT,
  );
  res.json({ content: page.items.map((f) => presentFile(req, f)), totalElements: page.total });
}

/**
 * `[{ "<endpointId>": [blob, ...] }, ...]`: one object per endpoint, in the order of its first blob in the asked sort.
 */
function blobsByEndpoint(req: Request, res: Response) {
  const app = applicationOf(req);
  const groups = new Map<string, ReturnType<typeof presentBlob>[]>();
  for (const blob of blobsOfApplication(
    req.ctx,
    req.principal.tenantId,
    app.name,
    payloadQuery(req, { datesRequired: true }),
  )) {
    let group = groups.get(blob.endpointId);
    if (!group) groups.set(blob.endpointId, (group = []));
    group.push(presentBlob(req, blob));
  }
  res.json([...groups].map(([endpointId, blobs]) => ({ [endpointId]: blobs })));
}

function listBlobs(req: Request, res: Response) {
  const app = applicationOf(req);
  const page = paginate(
    req,
    blobsOfApplication(req.ctx, req.principal.tenantId, app.name, payloadQuery(req, { byName: true })),
    LIST_LIMIT,
  );
  res.json(page.items.map((b) => ({ ...presentBlob(req, b), endpointId: b.endpointId })));
}

async function lastBlobData(req: Request, res: Response) {
  const endpoint = endpointOf(req);
  const blob = newestBlob(req.ctx, endpoint);
  if (!blob) throw notFound(`Endpoint ${endpoint.endpointId} has no binary data.`);
  await sendPayload(req, res, blob, blob.id);
}

function blobOf(req: Request): BlobRecord {
  const endpoint = endpointOf(req);
  const blobId = pathParam(req, 'blobId');
  const blob = findBlob(req.ctx, endpoint, blobId);
  if (!blob) throw notFound(`Endpoint ${endpoint.endpointId} has no binary data ${blobId}.`);
  return blob;
}

async function blobData(req: Request, res: Response) {
  const blob = blobOf(req);
  await sendPayload(req, res, blob, blob.id);
}

async function removeBlob(req: Request, res: Response) {
  await deleteBlob(req.ctx, blobOf(req));
  res.status(204).end();
}

async function fileData(req: Request, res: Response) {
  const endpoint = endpointOf(req);
  const name = filenameOf(req);
  const file = findFile(req.ctx, endpoint, name);
  if (!file) throw notFound(`Endpoint ${endpoint.endpointId} has no file ${name}.`);
  await sendPayload(req, res, file, file.name);
}

const dateTime = { type: 'string', format: 'date-time' };
const endpointIds: QueryParam = { name: 'endpointId', description: 'one or more, comma-separated' };
const namePart: QueryParam = { name: 'name', description: 'part of the name, any case' };
const sort: QueryParam = {
  name: 'sort',
  description: 'by creation time: ASC (default) or DESC',
  schema: { enum: ['ASC', 'DESC'] },
};
const dates = (required: boolean): QueryParam[] => [
  { name: 'fromDate', required, description: 'created at or after', schema: dateTime },
  { name: 'toDate', required, description: 'created at or before', schema: dateTime },
];
const uploadToken = 'header X-Auth-Token: the endpoint upload token from KP1 bcx/token';

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/binary-data',
    scope: 'X-Auth-Token',
    customAuth: true,
    body: 'none',
    summary: `Upload a blob (${uploadToken})`,
    location: true,
    query: [{ name: 'name', description: 'stored as the blob name' }],
    successStatus: 201,
    handler: uploadBlob,
  },
  {
    method: 'POST',
    path: '/files/{filename}',
    scope: 'X-Auth-Token',
    customAuth: true,
    body: 'none',
    summary: `Upload or overwrite a file (${uploadToken})`,
    successStatus: 204,
    handler: uploadFile,
  },
  {
    method: 'GET',
    path: '/applications/{appName}/files',
    scope: 'endpoint:read',
    summary: 'List files',
    paging: 'content',
    query: [endpointIds, namePart, ...dates(false), ...pageParams(LIST_LIMIT), sort],
    handler: listFiles,
  },
  {
    method: 'GET',
    path: '/applications/{appName}/binary-data',
    scope: 'endpoint:read',
    summary: 'Blobs by endpoint',
    query: [endpointIds, ...dates(true), sort],
    handler: blobsByEndpoint,
  },
  {
    method: 'GET',
    path: '/applications/{appName}/binary-data/list',
    scope: 'endpoint:read',
    summary: 'List blobs',
    paging: 'array',
    query: [endpointIds, namePart, ...dates(false), ...pageParams(LIST_LIMIT), sort],
    handler: listBlobs,
  },
  {
    method: 'GET',
    path: '/applications/{appName}/endpoints/{endpointId}/binary-data/data/last',
    scope: 'endpoint:read',
    summary: "The endpoint's newest blob payload",
    handler: lastBlobData,
  },
  {
    method: 'DELETE',
    path: '/applications/{appName}/endpoints/{endpointId}/binary-data/{blobId}',
    scope: 'endpoint:update',
    summary: 'Delete a blob',
    successStatus: 204,
    handler: removeBlob,
  },
  {
    method: 'GET',
    path: '/applications/{appName}/endpoints/{endpointId}/binary-data/{blobId}/data',
    scope: 'endpoint:read',
    summary: 'A blob payload',
    handler: blobData,
  },
  {
    method: 'GET',
    path: '/applications/{appName}/endpoints/{endpointId}/files/{filename}/data',
    scope: 'endpoint:read',
    summary: "A file's payload (added by the emulator: the target of a file's url)",
    addition: true,
    handler: fileData,
  },
];
