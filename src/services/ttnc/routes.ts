import type { Request, Response } from 'express';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { locationOf } from '../../server/location.js';
import { pathInt, queryEnum, queryString } from '../../server/params.js';
import { createIntegration, listIntegrations, presentIntegration, requireIntegration } from './integrations.js';
import { integrationCreationSchema, type IntegrationInput } from './schemas.js';

async function create(req: BodyRequest<IntegrationInput>, res: Response) {
  const integration = await createIntegration(req.ctx, req.principal.tenantId, req.body);
  res
    .status(201)
    .location(locationOf(req, 'integrations', integration.id))
    .json(presentIntegration(integration, true));
}

function list(req: Request, res: Response) {
  const query = {
    applicationName: queryString(req, 'applicationName'),
    status: queryEnum(req, 'status', ['ACTIVE', 'SUSPENDED'] as const) ?? 'ACTIVE',
  };
  const content = listIntegrations(req.ctx, req.principal.tenantId, query).map((i) => presentIntegration(i, false));
  res.json({ totalElements: content.length, content });
}

function getOne(req: Request, res: Response) {
  const id = pathInt(req, 'appIntegrationId');
  res.json(presentIntegration(requireIntegration(req.ctx, req.principal.tenantId, id), true));
}

export const routes: Route[] = [
  route({
    method: 'POST',
    path: '/integrations',
    scope: 'application:lns-app-integration:create',
    summary: 'Integrate an application with a LoRaWAN network server',
    location: true,
    bodySchema: integrationCreationSchema,
    secretBodyFields: ['lnsApiKeyId'],
    successStatus: 201,
    handler: create,
  }),
  {
    method: 'GET',
    path: '/integrations',
    scope: 'lns-app-integration:read',
    summary: 'List integrations (ACTIVE unless status says otherwise)',
    query: [
      { name: 'applicationName' },
      { name: 'status', description: 'ACTIVE (default) or SUSPENDED', schema: { enum: ['ACTIVE', 'SUSPENDED'] } },
    ],
    handler: list,
  },
  {
    method: 'GET',
    path: '/integrations/{appIntegrationId}',
    scope: 'lns-app-integration:read',
    summary: 'Get an integration with its devices',
    handler: getOne,
  },
];
