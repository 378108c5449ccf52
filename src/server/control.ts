import express, { type Router } from 'express';
import { FixtureError } from '../seed/errors.js';
import { HttpError } from './errors.js';

/** The emulator's own control plane under `/_emu/`: never mixed into the service routes. */
export interface ControlHooks {
  health: () => Record<string, unknown> & { ready: boolean };
  exportState: () => unknown;
  importState: (document: unknown) => Promise<void>;
  reset: () => Promise<void>;
  /** `POST /_emu/token`: a signed test token; throws with a reason a person can act on. */
  issueToken: (request: { tenant?: string; scopes?: string[]; platform?: boolean; ttlSeconds?: number }) => unknown;
}

export function controlRouter(hooks: ControlHooks): Router {
  const router = express.Router();
  const bigJson = express.json({ limit: '512mb', strict: true, type: () => true });
  router.get('/health', (_req, res) => {
    const { ready, ...health } = hooks.health();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'starting', ...health });
  });
  router.get('/state', (_req, res) => {
    res.json(hooks.exportState());
  });
  router.put('/state', bigJson, async (req, res) => {
    try {
      await hooks.importState(req.body);
    } catch (err) {
      if (err instanceof FixtureError) throw new HttpError(400, err.message);
      throw err;
    }
    res.status(204).end();
  });
  router.post('/reset', async (_req, res) => {
    await hooks.reset();
    res.status(204).end();
  });
  router.post('/token', express.json({ type: () => true }), (req, res) => {
    const body = (req.body ?? {}) as { tenant?: string; scopes?: string[]; platform?: boolean; ttlSeconds?: number };
    try {
      res.json(hooks.issueToken(body));
    } catch (err) {
      throw new HttpError(400, (err as Error).message);
    }
  });
  return router;
}
