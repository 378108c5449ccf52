import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

export const MAX_PROCESSORS = 1000;
export const MAX_SIMULATED_DOCS = 1000;

/** An ingest pipeline (spec 2: `{ processors }`), with the search engine's other pipeline fields. */
export const pipelineSchema = typedSchema({
  type: 'object',
  required: ['processors'],
  properties: {
    processors: { type: 'array', maxItems: MAX_PROCESSORS, items: { type: 'object' } },
    on_failure: { type: 'array', maxItems: MAX_PROCESSORS, items: { type: 'object' } },
    description: { type: 'string' },
    version: { type: 'integer' },
    _meta: { type: 'object' },
  },
  additionalProperties: false,
});

const simulatedDocSchema = {
  type: 'object',
  required: ['_source'],
  properties: {
    _index: { type: 'string', minLength: 1 },
    _type: { type: 'string', minLength: 1 },
    _id: { type: 'string', minLength: 1 },
    _routing: { type: 'string' },
    _score: {},
    _source: { type: 'object' },
  },
  additionalProperties: false,
} as const;

const docs = { type: 'array', minItems: 1, maxItems: MAX_SIMULATED_DOCS, items: simulatedDocSchema } as const;

/**
 * `POST /_ingest/pipeline/simulate/{pipelineID}`: the stored pipeline runs; a `pipeline` in the body is ignored, as the
 * search engine does.
 */
export const storedSimulationSchema = typedSchema({
  type: 'object',
  required: ['docs'],
  properties: { docs, pipeline: {} },
  additionalProperties: false,
});

/** `POST /_ingest/pipeline/simulate/`: the pipeline comes with the documents. */
export const inlineSimulationSchema = typedSchema({
  type: 'object',
  required: ['pipeline', 'docs'],
  properties: { docs, pipeline: pipelineSchema },
  additionalProperties: false,
});

/** A stored or inline pipeline: `{ processors, on_failure?, description?, version? }`. */
export type PipelineDefinition = FromSchema<typeof pipelineSchema>;
export type SimulatedDocInput = FromSchema<typeof simulatedDocSchema>;
export type StoredSimulation = FromSchema<typeof storedSimulationSchema>;
export type InlineSimulation = FromSchema<typeof inlineSimulationSchema>;

export const pipelineRecord = tenantRecord(['pipelineId', 'storedName', 'createdAt', 'updatedAt']);
