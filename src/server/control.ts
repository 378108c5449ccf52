import express, { type Router } from 'express';
import type { EmuContext } from '../context.js';
import { issueTestToken } from '../auth/test-tokens.js';
import { FixtureError } from '../fixtures/errors.js';
import { HttpError } from './errors.js';

/** The emulator's own control plane under `/_emu/`: never mixed into the service routes. */
export interface ControlHooks {
  health: () => Record<string, unknown> & { ready: boolean };
  exportState: () => unknown;
  importState: (document: unknown) => Promise<void>;
  reset: () => Promise<void>;
  baseUrl: () => string;
}

export function controlRouter(ctx: EmuContext, hooks: ControlHooks): Router {
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
    const body = (req.body ?? {}) as { tenant?: string; scopes?: string[]; ttlSeconds?: number };
    try {
      res.json(issueTestToken(ctx, { ...body, baseUrl: hooks.baseUrl() }));
    } catch (err) {
      throw new HttpError(400, (err as Error).message);
    }
  });
  return router;
}
