import type { Request, Response } from 'express';
import { notFound } from '../../server/errors.js';
import { payloadFiles } from './payloads.js';

/** `attachment; filename="x.bin"`, plus the RFC 5987 form when the name is not plain ASCII. */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '\\$&');
  const plain = `attachment; filename="${ascii}"`;
  return ascii === filename
    ? plain
    : `${plain}; ` +
        `filename*=UTF-8''` +
        `${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/**
 * Streams a stored payload: `application/octet-stream`, `Content-Disposition: attachment` with a filename ending
 * in `.bin` (spec 2), `Content-Length` from the record. The file is read in chunks, never whole.
 */
export async function sendPayload(
  req: Request,
  res: Response,
  payload: { file: string; size: number },
  filename: string,
): Promise<void> {
  const stored = await payloadFiles(req.ctx).read(payload.file);
  if (!stored)
    throw notFound(
      `The payload file of ${filename} is missing from the data directory (a state imported without its ` +
        `payload files?).`,
    );
  res.status(200).set({
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': attachment(`${filename}.bin`),
    'Content-Length': String(payload.size),
  });
  try {
    await stored.sendTo(res);
  } catch {
    // The client went away mid-download: nothing to answer.
  }
}
