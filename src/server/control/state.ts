import { FixtureError } from '../../seed/errors.js';
import type { Route } from '../../contract.js';
import { conflict, HttpError } from '../errors.js';
import { requestHostName } from '../host-check.js';
import { queryEnum } from '../params.js';
import type { ControlHooks } from './hooks.js';
import { redactSecrets } from './secrets.js';

const asBadRequest = (err: unknown) => (err instanceof FixtureError ? new HttpError(400, err.message) : err);

/** Health (open to all), the whole state as one document (secrets redacted unless asked), import and reset. */
export const stateRoutes = (hooks: ControlHooks): Route[] => [
  {
    method: 'GET',
    path: '/health',
    scope: null,
    summary: 'Health and readiness',
    handler: (req, res) => {
      const { ready, ...health } = hooks.health(requestHostName(req));
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'starting', ...health });
    },
  },
  {
    method: 'GET',
    path: '/state',
    scope: null,
    summary: 'The whole state as one document',
    handler: (req, res) => {
      const ctx = req.ctx;
      const document = ctx.store.exportDocument();
      const include = queryEnum(req, 'includeSecrets', ['true', 'false']) === 'true';
      res.json(include ? document : redactSecrets(document, ctx.services));
    },
  },
  {
    method: 'PUT',
    path: '/state',
    scope: null,
    summary: 'Replace the whole state (a state document or a fixture file)',
    bodyLimit: '512mb',
    handler: async (req, res) => {
      const generatedSecrets = await hooks.importState(req.body).catch((err) => Promise.reject(asBadRequest(err)));
      // Secrets the export redacted and nothing else defined were made anew: this answer is the one place they show.
      if (generatedSecrets.length > 0) res.status(200).json({ generatedSecrets });
      else res.status(204).end();
    },
  },
  {
    method: 'POST',
    path: '/reset',
    scope: null,
    summary: 'Back to the fixtures, or empty',
    bodySchema: { type: 'object', properties: { empty: { type: 'boolean' } } },
    handler: async (req, res) => {
      // The fixture file the emulator was started with no longer reads or validates: the request is fine, the file
      // is not (as a snapshot that does not validate cannot be restored).
      await hooks
        .reset({ empty: (req.body as { empty?: boolean }).empty === true })
        .catch((err) =>
          Promise.reject(err instanceof FixtureError ? conflict(`${err.message} Nothing was changed.`) : err),
        );
      res.status(204).end();
    },
  },
];
