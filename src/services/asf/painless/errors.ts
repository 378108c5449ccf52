/** A script the emulator refuses before running it: bad syntax, or a feature outside its subset (a 400). */
export class ScriptCompileError extends Error {
  constructor(
    readonly reason: string,
    /** Offset in the source. */
    readonly at: number,
  ) {
    super(reason);
  }
}

/**
 * A script that failed while running on one document: the document's answer in a simulation is an error of this
 * type (`null_pointer_exception`, `class_cast_exception`, ...), as the search engine reports it.
 */
export class ScriptRuntimeError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export const nullPointer = (what: string) => new ScriptRuntimeError('null_pointer_exception', `cannot ${what} of null`);
export const classCast = (message: string) => new ScriptRuntimeError('class_cast_exception', message);
export const illegalArgument = (message: string) => new ScriptRuntimeError('illegal_argument_exception', message);
