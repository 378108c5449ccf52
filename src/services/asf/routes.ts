import type { Request, Response } from 'express';
import { route, type BodyRequest, type Route } from '../../contract.js';
import { pathParam } from '../../server/params.js';
import { deletePipeline, requirePipeline, putPipeline, simulateInline, simulateStored } from './pipelines.js';
import {
  inlineSimulationSchema,
  pipelineSchema,
  storedSimulationSchema,
  type InlineSimulation,
  type PipelineDefinition,
  type StoredSimulation,
} from './schemas.js';

const acknowledged = { acknowledged: true };

async function put(req: BodyRequest<PipelineDefinition>, res: Response) {
  await putPipeline(req.ctx, req.principal.tenantId, pathParam(req, 'pipelineID'), req.body);
  res.json(acknowledged);
}

function get(req: Request, res: Response) {
  const pipeline = requirePipeline(req.ctx, req.principal.tenantId, pathParam(req, 'pipelineID'));
  res.json({ [pipeline.storedName]: pipeline.definition });
}

async function remove(req: Request, res: Response) {
  await deletePipeline(req.ctx, req.principal.tenantId, pathParam(req, 'pipelineID'));
  res.json(acknowledged);
}

async function simulateWithStored(req: BodyRequest<StoredSimulation>, res: Response) {
  res.json(await simulateStored(req.ctx, req.principal.tenantId, pathParam(req, 'pipelineID'), req.body.docs));
}

async function simulateWithInline(req: BodyRequest<InlineSimulation>, res: Response) {
  res.json(await simulateInline(req.ctx, req.body.pipeline, req.body.docs));
}

const PIPELINE = '/_ingest/pipeline/{pipelineID}';

export const routes: Route[] = [
  route({
    method: 'PUT',
    path: PIPELINE,
    scope: 'application:update',
    summary: 'Create or replace an ingest pipeline',
    bodySchema: pipelineSchema,
    handler: put,
  }),
  {
    method: 'GET',
    path: PIPELINE,
    scope: 'application:read',
    summary: 'Get an ingest pipeline (keyed by its stored name)',
    handler: get,
  },
  {
    method: 'DELETE',
    path: PIPELINE,
    scope: 'application:delete',
    summary: 'Delete an ingest pipeline',
    handler: remove,
  },
  route({
    method: 'POST',
    path: '/_ingest/pipeline/simulate/{pipelineID}',
    scope: 'application:update',
    summary: 'Run documents through a stored pipeline',
    bodySchema: storedSimulationSchema,
    handler: simulateWithStored,
  }),
  route({
    method: 'POST',
    path: '/_ingest/pipeline/simulate/',
    scope: null,
    summary: 'Run documents through a pipeline given in the request',
    bodySchema: inlineSimulationSchema,
    handler: simulateWithInline,
  }),
];
