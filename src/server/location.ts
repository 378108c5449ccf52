import type { Request } from 'express';

/** `{schema}://{host}:{port}/<prefix>/api/v1/<segments>`, under the prefix (or bare `/api/v1`) the request came in on. */
export function locationOf(req: Request, ...segments: Array<string | number>): string {
  return `${req.protocol}://${req.get('host')}${req.baseUrl}/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
}
