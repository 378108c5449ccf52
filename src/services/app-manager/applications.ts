import { randomBytes } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type { applicationRecord, appVersionRecord, NamedInput } from './schemas.js';

export const APPLICATIONS = collection<Application>('applications').index('tenant', (a) => a.tenantId);
export const APP_VERSIONS = collection<AppVersion>('app-versions').index('app', (v) => v.appName);

export type Application = FromSchema<typeof applicationRecord>;
export type AppVersion = FromSchema<typeof appVersionRecord>;

/** An application of the tenant; another tenant's is as absent as one that does not exist. */
export function findApplication(ctx: EmuContext, tenantId: string, name: string): Application | undefined {
  const app = APPLICATIONS.get(ctx, name);
  return app?.tenantId === tenantId ? app : undefined;
}

/** The tenant's application, or 404. */
export function requireApplication(ctx: EmuContext, tenantId: string, name: string): Application {
  const app = findApplication(ctx, tenantId, name);
  if (!app) throw notFound(`There is no application ${name}.`);
  return app;
}

/** Any tenant's application: for seeding and references between services, never for a caller's request. */
export function findApplicationOfAnyTenant(ctx: EmuContext, name: string): Application | undefined {
  return APPLICATIONS.get(ctx, name);
}

/** Application version names are global: KP1 topics name them without a tenant. */
export function findVersion(ctx: EmuContext, name: string): AppVersion | undefined {
  return APP_VERSIONS.get(ctx, name);
}

export function findTenantVersion(ctx: EmuContext, tenantId: string, name: string): AppVersion | undefined {
  const version = findVersion(ctx, name);
  return version?.tenantId === tenantId ? version : undefined;
}

/** The tenant's application version, or 404. */
export function requireTenantVersion(ctx: EmuContext, tenantId: string, name: string): AppVersion {
  const version = findTenantVersion(ctx, tenantId, name);
  if (!version) throw notFound(`There is no application version ${name}.`);
  return version;
}

export function versionsOf(ctx: EmuContext, appName: string): AppVersion[] {
  return APP_VERSIONS.lookup(ctx, 'app', appName).sort(
    (a, b) => a.createdDate.localeCompare(b.createdDate) || a.name.localeCompare(b.name),
  );
}

export function listApplications(ctx: EmuContext, tenantId: string): Application[] {
  return APPLICATIONS.lookup(ctx, 'tenant', tenantId).sort((a, b) => a.name.localeCompare(b.name));
}

function generatedName(ctx: EmuContext): string {
  for (;;) {
    const name = `app-${randomBytes(4).toString('hex')}`;
    if (!APPLICATIONS.has(ctx, name)) return name;
  }
}

export type { NamedInput };

const text = (value: string | null | undefined) => value ?? undefined;

/**
 * How `POST /applications` names an application (spec 3): `required`, a name must be given (the first revision, and
 * the later one with name auto-generation off); `generated`, the name must be empty and is generated.
 */
export type AppNaming = 'required' | 'generated';

export async function createApplication(
  ctx: EmuContext,
  tenantId: string,
  input: NamedInput,
  naming: AppNaming,
): Promise<Application> {
  let name = input.name;
  if (naming === 'generated') {
    if (name) throw badRequest(`name must be empty: name auto-generation is on (--generate-app-names); got "${name}".`);
    name = generatedName(ctx);
  } else if (!name) {
    throw badRequest(
      ctx.config.compat['app-manager'] === '1'
        ? 'name is required (first revision of application creation).'
        : 'name is required: name auto-generation is off (start with --generate-app-names to have names generated).',
    );
  }
  if (APPLICATIONS.has(ctx, name)) throw conflict(`An application named ${name} exists already.`);
  const now = ctx.clock.nowIso();
  const app: Application = {
    tenantId,
    name,
    displayName: text(input.displayName),
    description: text(input.description),
    createdDate: now,
    updatedDate: now,
  };
  await APPLICATIONS.put(ctx, name, app);
  return app;
}

export async function createVersion(
  ctx: EmuContext,
  tenantId: string,
  appName: string,
  input: NamedInput,
): Promise<AppVersion> {
  const app = findApplication(ctx, tenantId, appName);
  if (!app) throw notFound(`There is no application ${appName}.`);
  let name = input.name;
  if (!name) {
    let n = versionsOf(ctx, appName).length + 1;
    while (APP_VERSIONS.has(ctx, `${appName}-v${n}`)) n++;
    name = `${appName}-v${n}`;
  }
  if (APP_VERSIONS.has(ctx, name)) throw conflict(`An application version named ${name} exists already.`);
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
    APP_VERSIONS.putMutation(name, version),
    APPLICATIONS.putMutation(appName, { ...app, updatedDate: now }),
  ]);
  return version;
}
