import type { Request, Response } from 'express';
import { checkPreconditions, notModified } from '../../server/conditional.js';
import { badRequest, notFound } from '../../server/errors.js';
import { locationOf } from '../../server/location.js';
import { paginate } from '../../server/pagination.js';
import { pathInt } from '../../server/params.js';
import type { Route } from '../../server/service.js';

/** Realm, frontend-client and backend-client templates: platform-wide `{ id, template, description }` records. */
export const TEMPLATE_KINDS = [
  { path: 'realms', label: 'realm', collection: 'realm-templates', scope: '<platform>:tenant:realm-template' },
  { path: 'realm-frontend-clients', label: 'realm frontend client', collection: 'frontend-client-templates', scope: '<platform>:tenant:realm-frontend-client-template' },
  { path: 'realm-backend-clients', label: 'realm backend client', collection: 'backend-client-templates', scope: '<platform>:tenant:realm-backend-client-template' },
] as const;

type Kind = (typeof TEMPLATE_KINDS)[number];

interface Template {
  id: number;
  template: Record<string, unknown>;
  description: string;
}

function input(req: Request): Omit<Template, 'id'> {
  const body = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The body must be { "template": object, "description": string }.');
  if (typeof body.template !== 'object' || body.template === null || Array.isArray(body.template)) throw badRequest('template is required and must be a JSON object.');
  if (typeof body.description !== 'string') throw badRequest('description is required and must be a string.');
  return { template: body.template, description: body.description };
}

function existing(req: Request, kind: Kind): Template {
  const id = pathInt(req, 'id');
  const found = req.ctx.store.get<Template>(kind.collection, String(id));
  if (!found) throw notFound(`There is no ${kind.label} template ${id}.`);
  return found;
}

/** The five operations of one template kind; the spec lists some of them, the rest are documented additions. */
export function templateRoutes(kind: Kind): Route[] {
  const base = `/templates/${kind.path}`;
  return [
    {
      method: 'GET',
      path: base,
      scope: `${kind.scope}:read`,
      summary: `List ${kind.label} templates`,
      handler: (req, res: Response) => {
        const all = [...req.ctx.store.values<Template>(kind.collection)].sort((a, b) => a.id - b.id);
        const page = paginate(req, all, 50);
        res.json({ count: page.total, results: page.items });
      },
    },
    {
      method: 'POST',
      path: base,
      scope: `${kind.scope}:create`,
      summary: `Create a ${kind.label} template`,
      handler: async (req, res) => {
        const record: Template = { id: req.ctx.store.nextId(kind.collection), ...input(req) };
        await req.ctx.store.put(kind.collection, String(record.id), record as never);
        res.status(201).location(locationOf(req, 'templates', kind.path, record.id)).json(record);
      },
    },
    {
      method: 'GET',
      path: `${base}/{id}`,
      scope: `${kind.scope}:read`,
      summary: `Get a ${kind.label} template`,
      handler: (req, res) => {
        const record = existing(req, kind);
        if (!notModified(req, res, { revision: req.ctx.store.rev(kind.collection, String(record.id)) })) res.json(record);
      },
    },
    {
      method: 'PUT',
      path: `${base}/{id}`,
      scope: `${kind.scope}:update`,
      summary: `Replace a ${kind.label} template`,
      handler: async (req, res) => {
        const current = existing(req, kind);
        checkPreconditions(req, { revision: req.ctx.store.rev(kind.collection, String(current.id)) });
        const record: Template = { id: current.id, ...input(req) };
        await req.ctx.store.put(kind.collection, String(record.id), record as never);
        res.json(record);
      },
    },
    {
      method: 'DELETE',
      path: `${base}/{id}`,
      scope: `${kind.scope}:delete`,
      summary: `Delete a ${kind.label} template`,
      handler: async (req, res) => {
        const current = existing(req, kind);
        checkPreconditions(req, { revision: req.ctx.store.rev(kind.collection, String(current.id)) });
        await req.ctx.store.delete(kind.collection, String(current.id));
        res.status(204).end();
      },
    },
  ];
}
