import type { Response } from 'express';

/** Resolves once the response can take more (`drain`), or once the client is gone. */
function writable(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Answers 200 with a JSON array written element by element (chunked transfer), waiting whenever the client reads
 * slower than we write: a large answer is never held whole in memory. Stops when the client goes away.
 */
export async function sendJsonArray(res: Response, items: Iterable<unknown>): Promise<void> {
  res.status(200).type('application/json');
  let separator = '[';
  for (const item of items) {
    if (res.destroyed) return;
    if (!res.write(separator + JSON.stringify(item))) await writable(res);
    separator = ',';
  }
  if (res.destroyed) return;
  res.end(separator === '[' ? '[]' : ']');
}
