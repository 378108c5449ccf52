import type { EmuContext } from '../../context.js';
import { badRequest, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type { pipelineRecord } from './schemas.js';
import type { SimulatedDocInput } from './ingest/document.js';
import type { CompiledPipeline, PipelineDefinition } from './ingest/pipeline.js';

/**
 * The ingest simulator (the processors and the Painless interpreter, two dozen modules) loads with the first pipeline
 * a request stores or runs: a start, and every emulator that never calls the analytics facade, pays nothing for it.
 */
const simulator = async () => {
  const [pipeline, config, budget] = await Promise.all([
    import('./ingest/pipeline.js'),
    import('./ingest/config.js'),
    import('./painless/budget.js'),
  ]);
  return { ...pipeline, PipelineConfigError: config.PipelineConfigError, LIMITS: budget.LIMITS };
};

export const PIPELINES = collection<StoredPipeline>('ingest-pipelines');

/**
 * `storedName`: the name the search engine stores it under: the tenant's identifier, `-`, the pipeline's id (spec 2).
 * The record schema leaves `definition` out (describing it would refuse imports it takes today), so the type adds it.
 */
export type StoredPipeline = FromSchema<typeof pipelineRecord> & { definition: PipelineDefinition };

const recordId = (tenantId: string, pipelineId: string) => `${tenantId}/${encodeURIComponent(pipelineId)}`;
export const storedName = (tenantId: string, pipelineId: string) => `${tenantId}-${pipelineId}`;

/** The tenant's pipeline; another tenant's is invisible. */
export function findPipeline(ctx: EmuContext, tenantId: string, pipelineId: string): StoredPipeline | undefined {
  return PIPELINES.get(ctx, recordId(tenantId, pipelineId));
}

export function requirePipeline(ctx: EmuContext, tenantId: string, pipelineId: string): StoredPipeline {
  const pipeline = findPipeline(ctx, tenantId, pipelineId);
  if (!pipeline) throw notFound(`There is no ingest pipeline ${pipelineId}.`);
  return pipeline;
}

async function compiled(name: string, definition: PipelineDefinition): Promise<CompiledPipeline> {
  const { compilePipeline, PipelineConfigError } = await simulator();
  try {
    return compilePipeline(name, definition);
  } catch (err) {
    if (err instanceof PipelineConfigError) throw badRequest(`Invalid pipeline: ${err.message}.`);
    throw err;
  }
}

/** Creates or replaces a pipeline; one that the simulator could not run is refused (400) and nothing is stored. */
export async function putPipeline(
  ctx: EmuContext,
  tenantId: string,
  pipelineId: string,
  definition: PipelineDefinition,
): Promise<void> {
  await compiled(storedName(tenantId, pipelineId), definition);
  const now = ctx.clock.nowIso();
  const existing = findPipeline(ctx, tenantId, pipelineId);
  const record: StoredPipeline = {
    tenantId,
    pipelineId,
    storedName: storedName(tenantId, pipelineId),
    definition,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await PIPELINES.put(ctx, recordId(tenantId, pipelineId), record);
}

export async function deletePipeline(ctx: EmuContext, tenantId: string, pipelineId: string): Promise<void> {
  requirePipeline(ctx, tenantId, pipelineId);
  await PIPELINES.delete(ctx, recordId(tenantId, pipelineId));
}

export async function simulateStored(ctx: EmuContext, tenantId: string, pipelineId: string, docs: SimulatedDocInput[]) {
  const pipeline = requirePipeline(ctx, tenantId, pipelineId);
  const run = await compiled(pipeline.storedName, pipeline.definition);
  return (await simulator()).simulate(run, docs, ctx.clock.nowIso());
}

/**
 * The inline pipeline is named as the search engine names it in a simulation. The spec lists no scope for it, so it
 * needs no token even with `--auth on`; there, where anyone may call it, it gets a tenth of the time budget
 * (`LIMITS.openTimeMs`), so that an anonymous caller cannot keep the emulator busy.
 */
export async function simulateInline(ctx: EmuContext, definition: PipelineDefinition, docs: SimulatedDocInput[]) {
  const run = await compiled('_simulate_pipeline', definition);
  const { simulate, LIMITS } = await simulator();
  const timeMs = ctx.config.auth === 'on' ? LIMITS.openTimeMs : LIMITS.timeMs;
  return simulate(run, docs, ctx.clock.nowIso(), timeMs);
}
