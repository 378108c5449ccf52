import { randomBytes } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import type { applicationRecord, appVersionRecord, NamedInput } from './schemas.js';

export const APPLICATIONS = 'applications';
export const APP_VERSIONS = 'app-versions';

export type Application = FromSchema<typeof applicationRecord>;
export type AppVersion = FromSchema<typeof appVersionRecord>;

export function setupApplicationIndexes(ctx: EmuContext): void {
  ctx.store.defineIndex(APP_VERSIONS, 'app', (v) => v.appName as string);
  ctx.store.defineIndex(APPLICATIONS, 'tenant', (a) => a.tenantId as string);
}

/** An application of the tenant; another tenant's is as absent as one that does not exist. */
export function findApplication(ctx: EmuContext, tenantId: string, name: string): Application | undefined {
  const app = ctx.store.get<Application>(APPLICATIONS, name);
  return app?.tenantId === tenantId ? app : undefined;
}

/** Any tenant's application: for seeding and references between services, never for a caller's request. */
export function getApplication(ctx: EmuContext, name: string): Application | undefined {
  return ctx.store.get<Application>(APPLICATIONS, name);
}

/** Application version names are global: KP1 topics name them without a tenant. */
export function findVersion(ctx: EmuContext, name: string): AppVersion | undefined {
  return ctx.store.get<AppVersion>(APP_VERSIONS, name);
}

export function findTenantVersion(ctx: EmuContext, tenantId: string, name: string): AppVersion | undefined {
  const version = findVersion(ctx, name);
  return version?.tenantId === tenantId ? version : undefined;
}

export function versionsOf(ctx: EmuContext, appName: string): AppVersion[] {
  return ctx.store.lookup<AppVersion>(APP_VERSIONS, 'app', appName).sort((a, b) => a.createdDate.localeCompare(b.createdDate) || a.name.localeCompare(b.name));
}

export function listApplications(ctx: EmuContext, tenantId: string): Application[] {
  return ctx.store.lookup<Application>(APPLICATIONS, 'tenant', tenantId).sort((a, b) => a.name.localeCompare(b.name));
}

function generatedName(ctx: EmuContext): string {
  for (;;) {
    const name = `app-${randomBytes(4).toString('hex')}`;
    if (!ctx.store.has(APPLICATIONS, name)) return name;
  }
}

export type { NamedInput };

const text = (value: string | null | undefined) => value ?? undefined;

/** Creates an application; `nameRequired` is the first revision's rule, the later one generates a missing name. */
export async function createApplication(ctx: EmuContext, tenantId: string, input: NamedInput, nameRequired: boolean): Promise<Application> {
  let name = input.name;
  if (!name) {
    if (nameRequired) throw badRequest('name is required (first revision of application creation; see --compat app-manager=2).');
    name = generatedName(ctx);
  }
  if (ctx.store.has(APPLICATIONS, name)) throw conflict(`An application named ${name} exists already.`);
  const now = ctx.clock.nowIso();
  const app: Application = { tenantId, name, displayName: text(input.displayName), description: text(input.description), createdDate: now, updatedDate: now };
  await ctx.store.put(APPLICATIONS, name, app);
  return app;
}

export async function createVersion(ctx: EmuContext, tenantId: string, appName: string, input: NamedInput): Promise<AppVersion> {
  const app = findApplication(ctx, tenantId, appName);
  if (!app) throw notFound(`There is no application ${appName}.`);
  let name = input.name;
  if (!name) {
    let n = versionsOf(ctx, appName).length + 1;
    while (ctx.store.has(APP_VERSIONS, `${appName}-v${n}`)) n++;
    name = `${appName}-v${n}`;
  }
  if (ctx.store.has(APP_VERSIONS, name)) throw conflict(`An application version named ${name} exists already.`);
  const now = ctx.clock.nowIso();
  const version: AppVersion = {
    tenantId,
    appName,
    name,
    displayName: text(input.displayName),
    description: text(input.description),
    createdDate: now,
    updatedDate: now,
  };
  await ctx.store.commit([
    { op: 'put', c: APP_VERSIONS, id: name, v: version },
    { op: 'put', c: APPLICATIONS, id: appName, v: { ...app, updatedDate: now } },
  ]);
  return version;
}
