import type { Response } from 'express';

/**
 * Text an answer holds before it is sent: an array whose JSON stays under it is sent whole, with a
 * `Content-Length`, in one write; a larger one in pieces of about this size (chunked transfer encoding).
 */
const WHOLE_ANSWER = 64 * 1024;

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
 * Answers 200 with a JSON array of the elements whose JSON texts `elements` gives. Up to `WHOLE_ANSWER` of text it
 * is one answer with a `Content-Length`; past that it is written piece by piece (chunked transfer), waiting whenever
 * the client reads slower than we write, so that a large answer is never held whole in memory. Stops when the client
 * goes away.
 */
export async function sendJsonArray(res: Response, elements: Iterable<string>): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  let text = '[';
  let empty = true;
  for (const element of elements) {
    if (res.destroyed) return;
    text += (empty ? '' : ',') + element;
    empty = false;
    if (text.length < WHOLE_ANSWER) continue;
    const more = res.write(text);
    text = '';
    if (!more) await writable(res);
  }
  if (res.destroyed) return;
  text += ']';
  if (!res.headersSent) res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.end(text);
}
