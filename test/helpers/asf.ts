import { expect } from 'vitest';
import type { api } from './emulator.js';

export const ASF = '/asf/api/v1';
export const PIPELINE = `${ASF}/_ingest/pipeline`;
/** An ingest timestamp as the analytics facade writes it. */
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Documents run through a pipeline given inline (`POST .../_ingest/pipeline/simulate/`), through `call`. */
export function inlineSimulation(call: ReturnType<typeof api>) {
  /** Runs documents through a pipeline given inline; answers the `docs` of the simulation. */
  const simulate = async (processors: unknown[], docs: unknown[], extra: Record<string, unknown> = {}) => {
    const response = await call('POST', `${PIPELINE}/simulate/`, {
      body: { pipeline: { processors, ...extra }, docs },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.docs as any[];
  };
  /** The source of the one document after the processors (which must not fail it). */
  const sourceOf = async (processors: unknown[], source: Record<string, unknown>) => {
    const [result] = await simulate(processors, [{ _source: source }]);
    expect(result.doc, JSON.stringify(result)).toBeDefined();
    return result.doc._source;
  };
  return { simulate, sourceOf };
}
