import { checkTime, newBudget, type Budget } from '../painless/budget.js';
import { PipelineConfigError } from './config.js';
import type { PipelineDefinition } from '../schemas.js';
import { IngestDocument, type SimulatedDocInput } from './document.js';
import { asIngestError, errorBody, IngestError } from './errors.js';
import { compileProcessors, type CompiledProcessor } from './processors.js';

export type { PipelineDefinition };

export interface CompiledPipeline {
  name: string;
  processors: CompiledProcessor[];
  onFailure?: CompiledProcessor[];
}

/** Checks every processor, template and script of a pipeline; a PipelineConfigError names what cannot run. */
export function compilePipeline(name: string, definition: PipelineDefinition): CompiledPipeline {
  const processors = compileProcessors(definition.processors, 'processors');
  if (definition.on_failure !== undefined && definition.on_failure.length === 0)
    throw new PipelineConfigError('on_failure: the processors list cannot be empty');
  const onFailure =
    definition.on_failure === undefined ? undefined : compileProcessors(definition.on_failure, 'on_failure');
  return { name, processors, onFailure };
}

const FAILURE_FIELDS = [
  'on_failure_message',
  'on_failure_processor_type',
  'on_failure_processor_tag',
  'on_failure_pipeline',
];

/** Runs failure handlers with the failure described in `_ingest.on_failure_*`, as the search engine does. */
function handleFailure(
  doc: IngestDocument,
  err: IngestError,
  handlers: CompiledProcessor[],
  pipeline: string,
  budget: Budget,
): void {
  const previous = FAILURE_FIELDS.map((f) => doc.ingest.get(f));
  doc.ingest.set('on_failure_message', err.detail?.reason ?? err.message);
  doc.ingest.set('on_failure_processor_type', err.processorType ?? null);
  doc.ingest.set('on_failure_processor_tag', err.processorTag ?? null);
  doc.ingest.set('on_failure_pipeline', pipeline);
  try {
    runProcessors(handlers, doc, pipeline, budget);
  } finally {
    FAILURE_FIELDS.forEach((f, i) =>
      previous[i] === undefined ? doc.ingest.delete(f) : doc.ingest.set(f, previous[i]!),
    );
  }
}

function runProcessors(processors: CompiledProcessor[], doc: IngestDocument, pipeline: string, budget: Budget): void {
  for (const processor of processors) {
    try {
      checkTime(budget);
      if (processor.condition && !processor.condition(doc, budget)) continue;
      processor.execute(doc, budget);
    } catch (thrown) {
      const err = asIngestError(thrown, processor.type, processor.tag);
      if (processor.ignoreFailure) continue;
      if (!processor.onFailure) throw err;
      handleFailure(doc, err, processor.onFailure, pipeline, budget);
    }
  }
}

/** One document through the pipeline: its simulated answer, `{ doc }` or `{ error }`. */
function simulateOne(pipeline: CompiledPipeline, input: SimulatedDocInput, timestamp: string, budget: Budget) {
  try {
    const doc = IngestDocument.from(input, timestamp);
    try {
      runProcessors(pipeline.processors, doc, pipeline.name, budget);
    } catch (err) {
      if (!(err instanceof IngestError) || !pipeline.onFailure) throw err;
      handleFailure(doc, err, pipeline.onFailure, pipeline.name, budget);
    }
    return { doc: doc.toResponse() };
  } catch (thrown) {
    return { error: errorBody(thrown instanceof IngestError ? thrown : asIngestError(thrown, 'pipeline', undefined)) };
  }
}

/**
 * Simulates documents through a pipeline: every processor really runs, scripts in the interpreter, within one
 * time and memory budget for the whole request.
 */
export function simulate(pipeline: CompiledPipeline, docs: SimulatedDocInput[], timestamp: string, timeMs?: number) {
  const budget = newBudget(timeMs);
  return { docs: docs.map((doc) => simulateOne(pipeline, doc, timestamp, budget)) };
}
