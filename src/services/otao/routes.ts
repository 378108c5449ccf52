import type { Request, Response } from 'express';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { locationOf } from '../../server/location.js';
import { pathParam } from '../../server/params.js';
import { createSoftware, deleteSoftware, updateSoftware } from './changes.js';
import { softwareCreateSchema, softwareUpdateSchema, type SoftwareInput } from './schemas.js';
import { requireApplication } from '../app-manager/applications.js';
import { presentSoftware, requireSoftware, softwareOf } from './software.js';

const ONE = '/applications/{appName}/software/{softwareVersion}';

const applicationOf = (req: Request) => requireApplication(req.ctx, req.principal.tenantId, pathParam(req, 'appName'));

function list(req: Request, res: Response) {
  res.json(softwareOf(req.ctx, applicationOf(req).name).map(presentSoftware));
}

function getOne(req: Request, res: Response) {
  res.json(presentSoftware(requireSoftware(req.ctx, applicationOf(req), pathParam(req, 'softwareVersion'))));
}

async function create(req: BodyRequest<SoftwareInput>, res: Response) {
  const app = applicationOf(req);
  const software = await createSoftware(req.ctx, app, pathParam(req, 'softwareVersion'), req.body);
  res
    .status(201)
    .location(locationOf(req, 'applications', app.name, 'software', software.version))
    .json(presentSoftware(software));
}

async function update(req: BodyRequest<SoftwareInput>, res: Response) {
  const app = applicationOf(req);
  const current = requireSoftware(req.ctx, app, pathParam(req, 'softwareVersion'));
  await updateSoftware(req.ctx, app, current, req.body);
  res.status(204).end();
}

async function deleteOne(req: Request, res: Response) {
  const app = applicationOf(req);
  await deleteSoftware(req.ctx, app, requireSoftware(req.ctx, app, pathParam(req, 'softwareVersion')));
  res.status(204).end();
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/applications/{appName}/software',
    scope: 'application:software:read',
    summary: 'List the software of an application',
    handler: list,
  },
  { method: 'GET', path: ONE, scope: 'application:software:read', summary: 'Get a software version', handler: getOne },
  route({
    method: 'PUT',
    path: ONE,
    scope: 'application:software:update',
    summary: 'Update a software version (rollout strategy, upgrade graph, filters, metadata)',
    bodySchema: softwareUpdateSchema,
    successStatus: 204,
    handler: update,
  }),
  route({
    method: 'POST',
    path: ONE,
    scope: 'application:software:update',
    summary: 'Create a software version',
    location: true,
    bodySchema: softwareCreateSchema,
    successStatus: 201,
    handler: create,
  }),
  {
    method: 'DELETE',
    path: ONE,
    scope: 'application:software:update',
    summary: 'Delete a software version (an emulator addition)',
    addition: true,
    successStatus: 204,
    handler: deleteOne,
  },
];
