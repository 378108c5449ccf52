import type { EmuContext } from '../../context.js';
import { notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type { templateRecord, TemplateInput } from './schemas.js';

/** Realm, frontend-client and backend-client templates: platform-wide `{ id, template, description }` records. */
export const TEMPLATE_KINDS = [
  {
    path: 'realms',
    label: 'realm',
    collection: collection<Template>('realm-templates'),
    scope: '<platform>:tenant:realm-template',
  },
  {
    path: 'realm-frontend-clients',
    label: 'realm frontend client',
    collection: collection<Template>('frontend-client-templates'),
    scope: '<platform>:tenant:realm-frontend-client-template',
  },
  {
    path: 'realm-backend-clients',
    label: 'realm backend client',
    collection: collection<Template>('backend-client-templates'),
    scope: '<platform>:tenant:realm-backend-client-template',
  },
] as const;

export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

export type { TemplateInput };
export type Template = FromSchema<typeof templateRecord>;

export function listTemplates(ctx: EmuContext, kind: TemplateKind): Template[] {
  return [...kind.collection.values(ctx)].sort((a, b) => a.id - b.id);
}

/** The template, or 404 naming its kind. */
export function requireTemplate(ctx: EmuContext, kind: TemplateKind, id: number): Template {
  const found = kind.collection.get(ctx, String(id));
  if (!found) throw notFound(`There is no ${kind.label} template ${id}.`);
  return found;
}

export const templateRevision = (ctx: EmuContext, kind: TemplateKind, id: number) =>
  kind.collection.rev(ctx, String(id));

export async function createTemplate(ctx: EmuContext, kind: TemplateKind, input: TemplateInput): Promise<Template> {
  const record: Template = {
    id: kind.collection.nextId(ctx),
    template: input.template,
    description: input.description,
  };
  await kind.collection.put(ctx, String(record.id), record);
  return record;
}

export async function replaceTemplate(
  ctx: EmuContext,
  kind: TemplateKind,
  id: number,
  input: TemplateInput,
): Promise<Template> {
  requireTemplate(ctx, kind, id);
  const record: Template = { id, template: input.template, description: input.description };
  await kind.collection.put(ctx, String(id), record);
  return record;
}

export async function deleteTemplate(ctx: EmuContext, kind: TemplateKind, id: number): Promise<void> {
  requireTemplate(ctx, kind, id);
  await kind.collection.delete(ctx, String(id));
}
