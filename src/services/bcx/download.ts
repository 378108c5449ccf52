import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { notFound } from '../../server/errors.js';
import { payloadFiles } from './payloads.js';

/**
 * Streams a stored payload: `application/octet-stream`, `Content-Disposition: attachment` with a filename ending
 * in `.bin` (spec 2), `Content-Length` from the record. The file is read in chunks, never whole.
 */
export async function sendPayload(req: Request, res: Response, payload: { file: string; size: number }, filename: string): Promise<void> {
  const stream = await payloadFiles(req.ctx).read(payload.file);
  if (!stream) throw notFound(`The payload file of ${filename} is missing from the data directory (a state imported without its payload files?).`);
  res.status(200).attachment(`${filename}.bin`).type('application/octet-stream').set('Content-Length', String(payload.size));
  try {
    await pipeline(stream, res);
  } catch {
    // The client went away mid-download: nothing to answer.
  }
}
