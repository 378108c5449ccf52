/** A data directory that cannot be opened as it is; the message names the file and what to do. */
export class StoreError extends Error {
  override name = 'StoreError';
}
