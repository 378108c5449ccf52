import type { Request } from 'express';
import { checkPreconditions, notModified } from '../../server/conditional.js';
import { route, type Route } from '../../contract.js';
import { locationOf } from '../../server/location.js';
import { pageParams, paginate } from '../../server/pagination.js';
import { pathInt } from '../../server/params.js';
import { templateBodySchema } from './schemas.js';
import {
  createTemplate,
  deleteTemplate,
  requireTemplate,
  listTemplates,
  replaceTemplate,
  templateRevision,
  type TemplateKind,
} from './templates.js';

/** `If-Match` / `If-Unmodified-Since` against the template the path names (404 first when it does not exist). */
function checkedId(req: Request, kind: TemplateKind): number {
  const id = pathInt(req, 'id');
  requireTemplate(req.ctx, kind, id);
  checkPreconditions(req, { revision: templateRevision(req.ctx, kind, id) });
  return id;
}

/** The template operations the spec lists (`shared/spec/operations.json`), by kind; the others are additions. */
const IN_SPEC: Record<string, readonly string[]> = {
  realms: ['DELETE {id}'],
  'realm-frontend-clients': ['GET', 'POST', 'GET {id}', 'PUT {id}'],
  'realm-backend-clients': ['GET {id}', 'PUT {id}'],
};
const additionUnlessListed = (kind: TemplateKind, operation: string) =>
  IN_SPEC[kind.path]?.includes(operation) ? {} : { addition: true as const };

/** The five operations of one template kind; the spec lists some of them, the rest are documented additions. */
export function templateRoutes(kind: TemplateKind): Route[] {
  const base = `/templates/${kind.path}`;
  return [
    {
      method: 'GET',
      path: base,
      scope: `${kind.scope}:read`,
      summary: `List ${kind.label} templates`,
      query: pageParams(50),
      paging: 'results',
      ...additionUnlessListed(kind, 'GET'),
      handler: (req, res) => {
        const page = paginate(req, listTemplates(req.ctx, kind), 50);
        res.json({ count: page.total, results: page.items });
      },
    },
    route({
      method: 'POST',
      path: base,
      scope: `${kind.scope}:create`,
      summary: `Create a ${kind.label} template`,
      bodySchema: templateBodySchema(kind.path),
      successStatus: 201,
      location: true,
      ...additionUnlessListed(kind, 'POST'),
      handler: async (req, res) => {
        const record = await createTemplate(req.ctx, kind, req.body);
        res
          .status(201)
          .location(locationOf(req, 'templates', kind.path, record.id))
          .json(record);
      },
    }),
    {
      method: 'GET',
      path: `${base}/{id}`,
      scope: `${kind.scope}:read`,
      summary: `Get a ${kind.label} template`,
      etag: true,
      ...additionUnlessListed(kind, 'GET {id}'),
      handler: (req, res) => {
        const record = requireTemplate(req.ctx, kind, pathInt(req, 'id'));
        if (!notModified(req, res, { revision: templateRevision(req.ctx, kind, record.id) })) res.json(record);
      },
    },
    route({
      method: 'PUT',
      path: `${base}/{id}`,
      scope: `${kind.scope}:update`,
      summary: `Replace a ${kind.label} template`,
      bodySchema: templateBodySchema(kind.path),
      etag: true,
      ...additionUnlessListed(kind, 'PUT {id}'),
      handler: async (req, res) => {
        res.json(await replaceTemplate(req.ctx, kind, checkedId(req, kind), req.body));
      },
    }),
    {
      method: 'DELETE',
      path: `${base}/{id}`,
      scope: `${kind.scope}:delete`,
      summary: `Delete a ${kind.label} template`,
      successStatus: 204,
      etag: true,
      ...additionUnlessListed(kind, 'DELETE {id}'),
      handler: async (req, res) => {
        await deleteTemplate(req.ctx, kind, checkedId(req, kind));
        res.status(204).end();
      },
    },
  ];
}
