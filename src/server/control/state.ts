import { FixtureError } from '../../seed/errors.js';
import { HttpError } from '../errors.js';
import { queryEnum } from '../params.js';
import type { ControlRoute } from './route.js';
import { redactSecrets } from './secrets.js';

const asBadRequest = (err: unknown) => (err instanceof FixtureError ? new HttpError(400, err.message) : err);

/** Health (open to all), the whole state as one document (secrets redacted unless asked), import and reset. */
export const stateRoutes: ControlRoute[] = [
  {
    method: 'GET',
    path: '/health',
    handler: (_req, res, _ctx, hooks) => {
      const { ready, ...health } = hooks.health();
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'starting', ...health });
    },
  },
  {
    method: 'GET',
    path: '/state',
    handler: (req, res, ctx) => {
      const document = ctx.store.exportDocument();
      const include = queryEnum(req, 'includeSecrets', ['true', 'false']) === 'true';
      res.json(include ? document : redactSecrets(document, ctx.services));
    },
  },
  {
    method: 'PUT',
    path: '/state',
    body: 'large',
    handler: async (req, res, _ctx, hooks) => {
      await hooks.importState(req.body).catch((err) => Promise.reject(asBadRequest(err)));
      res.status(204).end();
    },
  },
  {
    method: 'POST',
    path: '/reset',
    body: 'json',
    handler: async (req, res, _ctx, hooks) => {
      const body = (req.body ?? {}) as { empty?: unknown };
      if (typeof body !== 'object' || Array.isArray(body) || (body.empty !== undefined && typeof body.empty !== 'boolean')) {
        throw new HttpError(400, 'The reset body is optional; if given it is { "empty": true|false }.');
      }
      await hooks.reset({ empty: body.empty === true });
      res.status(204).end();
    },
  },
];
