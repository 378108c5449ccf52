/** A data directory that cannot be opened as it is; the message names the file and what to do. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/**
 * A change the store refuses before anything happens (an id that is not a string, `__proto__` as an id,
 * a value nested too deeply, a counter that is not an integer). `status` is 400: the HTTP error handler
 * answers an error carrying a 4xx status with that status and its message.
 */
export class StoreValueError extends Error {
  override name = 'StoreValueError';
  readonly status = 400;
}

/** A JSON value nested deeper than the limit (`MAX_JSON_DEPTH`); refused before it is stored. */
export class JsonDepthError extends StoreValueError {
  override name = 'JsonDepthError';
  constructor(
    message: string,
    readonly limit: number,
  ) {
    super(message);
  }
}

/**
 * A change that could not be written to disk (disk full, I/O error): it was undone in memory, and the store
 * reports itself failing until a write succeeds again. `status` 503 says "try again later".
 */
export class StoreWriteError extends Error {
  override name = 'StoreWriteError';
  readonly status = 503;
}

/**
 * A write to a collection no service descriptor declares: a fault of the emulator's code, not of the request
 * (no `status`: answered 500). Nothing was changed.
 */
export class UndeclaredCollectionError extends Error {
  override name = 'UndeclaredCollectionError';
  constructor(readonly collection: string) {
    super(
      `The collection ${collection} is not declared by any service (its descriptor's collections or series); ` +
        `nothing was written.`,
    );
  }
}
