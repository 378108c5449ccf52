import { journalOf, type JournalFilter } from '../journal.js';
import { badRequest } from '../errors.js';
import { queryEnum, queryInt, queryString } from '../params.js';
import type { Route } from '../../contract.js';
import type { Request } from 'express';

export function journalFilter(req: Request, maxLimit: number): JournalFilter {
  const status = queryString(req, 'status');
  if (status !== undefined && !/^(?:[1-5]\d\d|[1-5]xx|0)$/i.test(status))
    throw badRequest(`Query parameter status is a status (404) or a class (4xx); got "${status}".`);
  return {
    type: queryEnum(req, 'type', ['http', 'kp1'] as const),
    service: queryString(req, 'service'),
    path: queryString(req, 'path'),
    status,
    endpointId: queryString(req, 'endpointId'),
    after: queryInt(req, 'after'),
    limit: queryInt(req, 'limit', { min: 1, max: maxLimit }) ?? Math.min(100, maxLimit),
  };
}

/** `GET /_emu/requests`: the request journal, oldest first, the last `limit` (default 100) that match. */
export const journalRoutes: Route[] = [
  {
    method: 'GET',
    path: '/requests',
    scope: null,
    summary: 'The request journal',
    handler: (req, res) => {
      const journal = journalOf(req.ctx);
      // Where the journal stands: `GET /_emu/events?after=<this>` continues exactly after this answer.
      res.set('X-Journal-Seq', String(journal.lastSeq)).json(journal.list(journalFilter(req, journal.size)));
    },
  },
];
