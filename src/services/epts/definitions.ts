import type { EmuContext } from '../../context.js';
import { badRequest } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection, type Mutation } from '../../store/index.js';
import type { definitionRecord } from './schemas.js';

export const TIME_SERIES = collection<Definition>('time-series').index('app', (d) => d.applicationName);

/** A time series definition of an application (spec 2): its name and the names of its values. */
export type Definition = FromSchema<typeof definitionRecord> & {
  /** Not in the record schema: describing it there would refuse imports it takes today. */
  values: string[];
};

/** Application names have no `/` (`^[a-z0-9_-]+$`), so the first `/` ends it. */
const definitionId = (applicationName: string, name: string) => `${applicationName}/${name}`;

export function findDefinition(ctx: EmuContext, applicationName: string, name: string): Definition | undefined {
  return TIME_SERIES.get(ctx, definitionId(applicationName, name));
}

/** The application's definitions, by name. */
export function definitionsOf(ctx: EmuContext, applicationName: string): Definition[] {
  return TIME_SERIES.lookup(ctx, 'app', applicationName).sort((a, b) => a.name.localeCompare(b.name));
}

/** The definitions of the named series; 400 naming the ones the application does not define. */
export function definitionsNamed(ctx: EmuContext, applicationName: string, names: readonly string[]): Definition[] {
  const found = names.map((name) => findDefinition(ctx, applicationName, name));
  const missing = names.filter((_, i) => !found[i]);
  if (missing.length > 0) {
    const defined = definitionsOf(ctx, applicationName).map((d) => d.name);
    throw badRequest(
      `Application ${applicationName} has no time series ${missing.join(', ')}; ` +
        (defined.length > 0
          ? `it defines ${defined.join(', ')}.`
          : 'it defines none yet (a device defines one with its first dcx sample).'),
    );
  }
  return found as Definition[];
}

/**
 * The mutation that makes `values` part of the definition of `name`: a new definition, or the existing one with
 * the value names it lacks appended (in the order given); undefined when it has them all already.
 */
export function definitionCovering(
  ctx: EmuContext,
  tenantId: string,
  applicationName: string,
  name: string,
  values: readonly string[],
  now: string,
): Mutation | undefined {
  const current = findDefinition(ctx, applicationName, name);
  const added = values.filter((v) => !current?.values.includes(v));
  if (added.length === 0) return undefined;
  const next: Definition = current
    ? { ...current, values: [...current.values, ...added], updatedDate: now }
    : { tenantId, applicationName, name, values: [...added], createdDate: now, updatedDate: now };
  return TIME_SERIES.putMutation(definitionId(applicationName, name), next);
}

export const presentDefinition = (d: Definition) => ({ name: d.name, values: d.values });
