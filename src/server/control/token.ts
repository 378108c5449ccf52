import { HttpError } from '../errors.js';
import type { ControlRoute } from './route.js';

/** `POST /_emu/token`: a test token of a fixture tenant, as `platform-emu token` prints it. */
export const tokenRoutes: ControlRoute[] = [
  {
    method: 'POST',
    path: '/token',
    body: 'json',
    handler: (req, res, _ctx, hooks) => {
      const body = (req.body ?? {}) as { tenant?: string; scopes?: string[]; platform?: boolean; ttlSeconds?: number };
      try {
        res.json(hooks.issueToken(body));
      } catch (err) {
        throw new HttpError(400, (err as Error).message);
      }
    },
  },
];
