import type { Request } from 'express';
import { PARSED_QUERY } from './params.js';

type Fields = Record<string | symbol, unknown>;

/**
 * Adds, as placeholders, every field that a service request gets or is asked for on its way (`ctx`, `principal`, the
 * journal's `arrivedAt` and `journaledAsKp1`, express's parsed URL, the parsed query, `body`), before express changes
 * the request's prototype (see src/server/direct-entry.ts). Each field added after that change cost V8 a new hidden
 * class per request: about 1 kB of garbage a field, the most of a GET's garbage (`npm run bench` figure 2a). The
 * placeholders read as absent (undefined, or 0 for a time that is set on arrival).
 */
export function addRequestFields(req: Request): void {
  const fields = req as unknown as Fields;
  fields.ctx = undefined;
  fields.principal = undefined;
  fields.arrivedAt = 0;
  fields.journaledAsKp1 = undefined;
  fields.body = undefined;
  fields._parsedUrl = undefined;
  fields[PARSED_QUERY] = undefined;
}
