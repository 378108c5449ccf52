// The functions one by one: the package's index loads all of semver (some fifty modules, 10-15 ms of a start).
import compareVersions from 'semver/functions/compare.js';
import equalVersions from 'semver/functions/eq.js';
import parseVersion from 'semver/functions/parse.js';
import type { EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import { ROLLOUT_STRATEGIES, type RolloutFilter, type softwareRecord, type SoftwareInput } from './schemas.js';
import type { Application } from '../app-manager/applications.js';
import { filtersOfApplication } from '../epr/filters.js';

export const SOFTWARE = collection<Software>('software').index('app', (s) => s.appName);

export type RolloutStrategy = (typeof ROLLOUT_STRATEGIES)[number];
export { ROLLOUT_STRATEGIES, type RolloutFilter, type SoftwareInput };

/**
 * The record schema names only the string fields; the rest is what we write from a checked body. Describing them
 * there would refuse imports it takes today, so the type adds them.
 */
export type Software = FromSchema<typeof softwareRecord> & {
  specification?: unknown;
  metadata?: unknown;
  upgradableFrom: string[];
  rolloutStrategy: RolloutStrategy;
  /** `rolloutDate`: `yyyy-MM-dd'T'HH:mm:ss'Z'`; absent: the filter applies at once. */
  filters: RolloutFilter[];
};

const softwareKey = (appName: string, version: string) => `${appName}/${version}`;

/** A semantic version written out in full (`1.2.0`, `1.2.0-rc.1+b7`); not `v1.2.0`, not `1.2`. */
export function isSemanticVersion(value: string): boolean {
  const parsed = parseVersion(value);
  return parsed !== null && parsed.raw === value && !value.startsWith('v');
}

export function checkVersion(value: string, what = 'The software version'): string {
  if (!isSemanticVersion(value))
    throw badRequest(
      `${what} must be a semantic version like 1.2.0 (MAJOR.MINOR.PATCH, optional -prerelease and +build); ` +
        `got "${value}".`,
    );
  return value;
}

/** Versions of equal precedence (`1.0.0` and `1.0.0+b2`) are one version: the priority of software is its version. */
export const sameVersion = (a: string, b: string) =>
  a === b || (isSemanticVersion(a) && isSemanticVersion(b) && equalVersions(a, b));

export const byVersion = (a: Software, b: Software) => compareVersions(a.version, b.version);

/** The software of an application, lowest version first (any tenant: callers hold an application of their tenant). */
export function softwareOf(ctx: EmuContext, appName: string): Software[] {
  return SOFTWARE.lookup(ctx, 'app', appName).sort(byVersion);
}

export function allSoftware(ctx: EmuContext): IterableIterator<Software> {
  return SOFTWARE.values(ctx);
}

export function requireSoftware(ctx: EmuContext, app: Application, version: string): Software {
  const software = SOFTWARE.get(ctx, softwareKey(app.name, checkVersion(version)));
  if (!software) throw notFound(`Application ${app.name} has no software version ${version}.`);
  return software;
}

/** The rules of the body the schema cannot say: versions in `upgradableFrom`, filters of the application, dates. */
function checkInput(ctx: EmuContext, app: Application, version: string, input: SoftwareInput): void {
  const from = input.upgradableFrom ?? [];
  from.forEach((v, i) => checkVersion(v, `upgradableFrom[${i}]`));
  const repeated = from.find((v, i) => from.findIndex((w) => sameVersion(v, w)) !== i);
  if (repeated !== undefined) throw badRequest(`upgradableFrom lists ${repeated} twice.`);
  if (from.some((v) => sameVersion(v, version)))
    throw badRequest(`upgradableFrom cannot list the software's own version ${version}.`);
  const known = new Set(filtersOfApplication(ctx, app.name).map((f) => f.filterId));
  const filters = input.filters ?? [];
  filters.forEach((filter, i) => {
    if (!known.has(filter.filterId))
      throw badRequest(
        `filters[${i}].filterId ${filter.filterId} is not an endpoint filter of application ${app.name}.`,
      );
    if (filter.rolloutDate !== undefined && Number.isNaN(Date.parse(filter.rolloutDate))) {
      throw badRequest(
        `filters[${i}].rolloutDate ${filter.rolloutDate} is not a date (format yyyy-MM-dd'T'HH:mm:ss'Z').`,
      );
    }
    if (filters.findIndex((f) => f.filterId === filter.filterId) !== i)
      throw badRequest(`filters lists filter ${filter.filterId} twice.`);
  });
}

export function newSoftware(
  ctx: EmuContext,
  app: Application,
  version: string,
  input: SoftwareInput,
  now: string,
): Software {
  checkVersion(version);
  const clash = softwareOf(ctx, app.name).find((s) => sameVersion(s.version, version));
  if (clash)
    throw conflict(
      `Application ${app.name} has software version ${clash.version} ` +
        `already${clash.version === version ? '' : ' (the same version by precedence)'}.`,
    );
  checkInput(ctx, app, version, input);
  return {
    tenantId: app.tenantId,
    appName: app.name,
    version,
    ...(input.specification !== undefined ? { specification: input.specification } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    upgradableFrom: input.upgradableFrom ?? [],
    rolloutStrategy: input.rolloutStrategy ?? 'suspended',
    filters: input.filters ?? [],
    createdDate: now,
    updatedDate: now,
  };
}

/** `PUT`: the given fields replace the stored ones, absent fields stay; `metadata: null` removes the metadata. */
export function updatedSoftware(
  ctx: EmuContext,
  app: Application,
  current: Software,
  input: SoftwareInput,
  now: string,
): Software {
  if (Object.hasOwn(input, 'specification')) {
    throw badRequest(
      'specification is not accepted on update: software is immutable; create a new version (POST) with the ' +
        'new specification.',
    );
  }
  checkInput(ctx, app, current.version, input);
  const { metadata: _old, ...rest } = current;
  const metadata = input.metadata === undefined ? current.metadata : input.metadata;
  return {
    ...rest,
    ...(metadata !== undefined && metadata !== null ? { metadata } : {}),
    upgradableFrom: input.upgradableFrom ?? current.upgradableFrom,
    rolloutStrategy: input.rolloutStrategy ?? current.rolloutStrategy,
    filters: input.filters ?? current.filters,
    updatedDate: now,
  };
}

export const softwareId = (software: Software) => softwareKey(software.appName, software.version);

export function presentSoftware(software: Software) {
  return {
    appName: software.appName,
    version: software.version,
    ...(software.specification !== undefined ? { specification: software.specification } : {}),
    ...(software.metadata !== undefined ? { metadata: software.metadata } : {}),
    upgradableFrom: software.upgradableFrom,
    rolloutStrategy: software.rolloutStrategy,
    filters: software.filters,
  };
}
