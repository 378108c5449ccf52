import type { Request } from 'express';
import { realmPath } from '../auth/tokens.js';
import { requestOrigin } from './host-check.js';

/**
 * `{schema}://{host}:{port}/<prefix>/api/v1/<segments>`, under the prefix (or bare `/api/v1`) the request came in on.
 */
export function locationOf(req: Request, ...segments: Array<string | number>): string {
  return `${requestOrigin(req)}${req.baseUrl}/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
}

/** A realm's issuer at the address the caller used to reach the emulator. */
export const issuerUrl = (req: Request, realm: string) => `${requestOrigin(req)}${realmPath(realm)}`;
