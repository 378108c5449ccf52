import type { Request, Response } from 'express';
import { HttpError } from '../../server/errors.js';
import { pathParam } from '../../server/params.js';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { patchAppConfig, putAppConfig, versionConfiguration, requireVersionOfApplication } from './app-configs.js';
import { jsonPatchSchema, type JsonPatch } from './schemas.js';

const PATH = '/app-configs/applications/{appName}/app-versions/{appVersionName}';

const versionOf = (req: Request) =>
  requireVersionOfApplication(
    req.ctx,
    req.principal.tenantId,
    pathParam(req, 'appName'),
    pathParam(req, 'appVersionName'),
  );

async function put(req: Request, res: Response) {
  const version = versionOf(req);
  if (req.body === undefined)
    throw new HttpError(400, 'The request body is missing: PUT takes the whole configuration, any JSON value.');
  await putAppConfig(req.ctx, version, req.body);
  res.status(204).end();
}

function get(req: Request, res: Response) {
  res.json(versionConfiguration(req.ctx, versionOf(req).name));
}

async function patch(req: BodyRequest<JsonPatch>, res: Response) {
  await patchAppConfig(req.ctx, versionOf(req), req.body);
  res.status(204).end();
}

export const routes: Route[] = [
  {
    method: 'PUT',
    path: PATH,
    scope: 'application:update',
    summary: 'Set the configuration of an application version',
    successStatus: 204,
    handler: put,
  },
  {
    method: 'GET',
    path: PATH,
    scope: 'application:read',
    summary: 'Get the configuration of an application version',
    handler: get,
  },
  route({
    method: 'PATCH',
    path: PATH,
    scope: 'application:update',
    summary: 'Change the configuration of an application version with a JSON Patch (RFC 6902)',
    bodySchema: jsonPatchSchema,
    successStatus: 204,
    // Spec 2: "404 Err (application not found, patch path not found, or denied)".
    deniedStatus: 404,
    handler: patch,
  }),
];
