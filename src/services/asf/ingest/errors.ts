import { ScriptRuntimeError } from '../painless/errors.js';

/**
 * A processor that failed on one document (a missing field, a value of the wrong type, a script's runtime error):
 * the simulation answers that document with `{ "error": ... }`, as the search engine does, and goes on.
 */
export class IngestError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly processorType?: string,
    readonly processorTag?: string,
    readonly detail?: { type: string; reason: string },
  ) {
    super(message);
  }
}

export const ingestFailure = (message: string) => new IngestError('illegal_argument_exception', message);

/** A script's failure, as the search engine reports it: a `script_exception` caused by the Java exception. */
export function scriptFailure(err: unknown): unknown {
  return err instanceof ScriptRuntimeError
    ? new IngestError('script_exception', 'runtime error', undefined, undefined, {
        type: err.type,
        reason: err.message,
      })
    : err;
}

/** Any failure of a processor as an IngestError naming the processor (the first one to fail keeps its name). */
export function asIngestError(err: unknown, processorType: string, tag: string | undefined): IngestError {
  if (err instanceof IngestError)
    return err.processorType ? err : new IngestError(err.type, err.message, processorType, tag, err.detail);
  // A limit of the simulation hit outside a script (a copy too large, time up): its own type, no script around it.
  if (err instanceof ScriptRuntimeError) return new IngestError(err.type, err.message, processorType, tag);
  if (err instanceof RangeError)
    return new IngestError(
      'illegal_argument_exception',
      `the document is nested too deeply: ${err.message}`,
      processorType,
      tag,
    );
  throw err;
}

/** The search engine's error object for a failed document. */
export function errorBody(err: IngestError) {
  const cause = {
    type: err.type,
    reason: err.message,
    ...(err.processorType ? { processor_type: err.processorType } : {}),
    ...(err.processorTag ? { processor_tag: err.processorTag } : {}),
  };
  return {
    root_cause: [cause],
    ...cause,
    ...(err.detail ? { caused_by: err.detail } : {}),
  };
}
