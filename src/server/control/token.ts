import type { JsonSchema, Route } from '../../contract.js';
import { HttpError } from '../errors.js';
import type { ControlHooks } from './hooks.js';

const tokenRequestSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tenant: { type: 'string', description: 'a tenant id or realm name' },
    scopes: { type: 'array', items: { type: 'string' } },
    platform: { type: 'boolean' },
    ttlSeconds: { type: 'integer', minimum: 1 },
  },
};

/** `POST /_emu/token`: a test token of a fixture tenant, as `platform-emu token` prints it. */
export const tokenRoutes = (hooks: ControlHooks): Route[] => [
  {
    method: 'POST',
    path: '/token',
    scope: null,
    summary: 'A test token of a fixture tenant',
    bodySchema: tokenRequestSchema,
    handler: (req, res) => {
      try {
        res.json(
          hooks.issueToken(req.body as { tenant?: string; scopes?: string[]; platform?: boolean; ttlSeconds?: number }),
        );
      } catch (err) {
        throw new HttpError(400, (err as Error).message);
      }
    },
  },
];
