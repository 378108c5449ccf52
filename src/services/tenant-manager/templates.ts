import type { EmuContext } from '../../context.js';
import { notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import type { templateRecord, TemplateInput } from './schemas.js';

/** Realm, frontend-client and backend-client templates: platform-wide `{ id, template, description }` records. */
export const TEMPLATE_KINDS = [
  { path: 'realms', label: 'realm', collection: 'realm-templates', scope: '<platform>:tenant:realm-template' },
  { path: 'realm-frontend-clients', label: 'realm frontend client', collection: 'frontend-client-templates', scope: '<platform>:tenant:realm-frontend-client-template' },
  { path: 'realm-backend-clients', label: 'realm backend client', collection: 'backend-client-templates', scope: '<platform>:tenant:realm-backend-client-template' },
] as const;

export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

export type { TemplateInput };
export type Template = FromSchema<typeof templateRecord>;

export function listTemplates(ctx: EmuContext, kind: TemplateKind): Template[] {
  return [...ctx.store.values<Template>(kind.collection)].sort((a, b) => a.id - b.id);
}

/** The template, or 404 naming its kind. */
export function getTemplate(ctx: EmuContext, kind: TemplateKind, id: number): Template {
  const found = ctx.store.get<Template>(kind.collection, String(id));
  if (!found) throw notFound(`There is no ${kind.label} template ${id}.`);
  return found;
}

export const templateRevision = (ctx: EmuContext, kind: TemplateKind, id: number) => ctx.store.rev(kind.collection, String(id));

export async function createTemplate(ctx: EmuContext, kind: TemplateKind, input: TemplateInput): Promise<Template> {
  const record: Template = { id: ctx.store.nextId(kind.collection), template: input.template, description: input.description };
  await ctx.store.put(kind.collection, String(record.id), record as never);
  return record;
}

export async function replaceTemplate(ctx: EmuContext, kind: TemplateKind, id: number, input: TemplateInput): Promise<Template> {
  getTemplate(ctx, kind, id);
  const record: Template = { id, template: input.template, description: input.description };
  await ctx.store.put(kind.collection, String(id), record as never);
  return record;
}

export async function deleteTemplate(ctx: EmuContext, kind: TemplateKind, id: number): Promise<void> {
  getTemplate(ctx, kind, id);
  await ctx.store.delete(kind.collection, String(id));
}
