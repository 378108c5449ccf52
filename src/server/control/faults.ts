import { notFound } from '../errors.js';
import { faultsOf } from '../faults.js';
import type { ControlRoute } from './route.js';

/** `/_emu/faults`: injected HTTP failures and device conditions; runtime only, cleared by reset. */
export const faultRoutes: ControlRoute[] = [
  { method: 'GET', path: '/faults', handler: (_req, res, ctx) => res.json(faultsOf(ctx).list()) },
  {
    method: 'POST',
    path: '/faults',
    body: 'json',
    handler: (req, res, ctx) => res.status(201).json(faultsOf(ctx).add(req.body)),
  },
  {
    method: 'DELETE',
    path: '/faults',
    handler: (_req, res, ctx) => {
      faultsOf(ctx).clear();
      res.status(204).end();
    },
  },
  {
    method: 'DELETE',
    path: '/faults/{id}',
    handler: (req, res, ctx) => {
      if (!faultsOf(ctx).remove(String(req.params.id))) throw notFound(`There is no fault ${req.params.id}; GET /_emu/faults lists them.`);
      res.status(204).end();
    },
  },
];
