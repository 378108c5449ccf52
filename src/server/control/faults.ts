import { notFound } from '../errors.js';
import { faultsOf } from '../faults.js';
import type { Route } from '../../contract.js';

/** `/_emu/faults`: injected HTTP failures and device conditions; runtime only, cleared by reset. */
export const faultRoutes: Route[] = [
  {
    method: 'GET',
    path: '/faults',
    scope: null,
    summary: 'List the faults',
    handler: (req, res) => res.json(faultsOf(req.ctx).list()),
  },
  {
    method: 'POST',
    path: '/faults',
    scope: null,
    summary: 'Add a fault',
    // Checked by `Faults.add` against the schema of its kind (the library's `faults.add` takes the same input).
    handler: (req, res) => res.status(201).json(faultsOf(req.ctx).add(req.body)),
  },
  {
    method: 'DELETE',
    path: '/faults',
    scope: null,
    summary: 'Clear every fault',
    handler: (req, res) => {
      faultsOf(req.ctx).clear();
      res.status(204).end();
    },
  },
  {
    method: 'DELETE',
    path: '/faults/{id}',
    scope: null,
    summary: 'Remove a fault',
    handler: (req, res) => {
      if (!faultsOf(req.ctx).remove(String(req.params.id)))
        throw notFound(`There is no fault ${req.params.id}; GET /_emu/faults lists them.`);
      res.status(204).end();
    },
  },
];
