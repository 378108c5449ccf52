import jsonPatch, { type Operation } from 'fast-json-patch';
import type { EmuContext } from '../../context.js';
import { badRequest, conflict, HttpError, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection, isPlainObject } from '../../store/index.js';
import { jsonSizeUpTo } from './json-size.js';
import type { appConfigSchema, JsonPatch } from './schemas.js';
import { applyStep, PatchStepError, prototypeFree, valueAt } from './json-patch.js';
import { findTenantVersion, requireApplication, type AppVersion } from '../app-manager/applications.js';

export const APP_CONFIGS = collection<AppConfig>('app-configs');

/** The configuration of one application version; stored under the version's name (version names are global). */
export type AppConfig = FromSchema<typeof appConfigSchema>;

/** A version never configured reads as the empty object (docs/services/application-configuration.md). */
export const EMPTY_CONFIGURATION = {};

/** The tenant's version of the tenant's application; 404 naming what is missing otherwise. */
export function requireVersionOfApplication(
  ctx: EmuContext,
  tenantId: string,
  appName: string,
  appVersionName: string,
): AppVersion {
  requireApplication(ctx, tenantId, appName);
  const version = findTenantVersion(ctx, tenantId, appVersionName);
  if (!version || version.appName !== appName)
    throw notFound(`Application ${appName} has no version ${appVersionName}.`);
  return version;
}

/** The stored configuration of a version (any tenant's: for the services that read their part of it). */
export function findAppConfig(ctx: EmuContext, appVersionName: string): AppConfig | undefined {
  return APP_CONFIGS.get(ctx, appVersionName);
}

/** The whole configuration of a version, `{}` when none was ever written. */
export function versionConfiguration(ctx: EmuContext, appVersionName: string): unknown {
  const record = findAppConfig(ctx, appVersionName);
  return record ? record.config : EMPTY_CONFIGURATION;
}

/**
 * A service's part of a version's configuration: the value under the service's name (`{ "ecr": {...} }`),
 * or undefined. Callers judge its shape: an invalid part is the service's problem to report (spec 1: 503).
 */
export function serviceConfiguration(ctx: EmuContext, appVersionName: string, serviceName: string): unknown {
  const config = findAppConfig(ctx, appVersionName)?.config;
  if (!isPlainObject(config)) return undefined;
  return Object.hasOwn(config, serviceName) ? config[serviceName] : undefined;
}

export function newAppConfig(version: AppVersion, config: unknown, now: string, previous?: AppConfig): AppConfig {
  return {
    tenantId: version.tenantId,
    appName: version.appName,
    appVersionName: version.name,
    config,
    createdDate: previous?.createdDate ?? now,
    updatedDate: now,
  };
}

export async function putAppConfig(ctx: EmuContext, version: AppVersion, config: unknown): Promise<AppConfig> {
  const record = newAppConfig(version, config, ctx.clock.nowIso(), findAppConfig(ctx, version.name));
  await APP_CONFIGS.put(ctx, version.name, record);
  return record;
}

/**
 * Errors of fast-json-patch, by what they mean for the caller: a path that is not there, a failed test, a bad patch.
 */
const MISSING_PATH = new Set([
  'OPERATION_PATH_UNRESOLVABLE',
  'OPERATION_FROM_UNRESOLVABLE',
  'OPERATION_PATH_CANNOT_ADD',
  'OPERATION_VALUE_OUT_OF_BOUNDS',
  'OPERATION_PATH_ILLEGAL_ARRAY_INDEX',
]);

function patchFailure(err: unknown, index: number, operation: Operation): Error {
  const where = `operation [${index}] (${operation.op} ${operation.path})`;
  const reason = (err as Error).message.split('\n')[0];
  if (err instanceof PatchStepError) {
    if (err.kind === 'test-failed') return conflict(`The patch was not applied: ${where} failed: ${reason}.`);
    if (err.kind === 'missing') return notFound(`The patch was not applied: ${where}: ${reason}.`);
    return badRequest(`The patch was not applied: ${where} is invalid: ${reason}.`);
  }
  if (!(err instanceof jsonPatch.JsonPatchError))
    return badRequest(`The patch was not applied: ${where} is refused: ${reason}`);
  if (MISSING_PATH.has(err.name)) return notFound(`The patch was not applied: ${where}: ${reason}.`);
  return badRequest(`The patch was not applied: ${where} is invalid: ${reason}.`);
}

/** What an operation adds to the document: its value, or for `copy` and `move` the value at `from` (0 when absent). */
function addedValue(document: unknown, operation: Operation): unknown {
  if (operation.op === 'copy' || operation.op === 'move') {
    const found = valueAt(document, operation.from);
    return typeof found === 'object' ? found.value : undefined;
  }
  return operation.op === 'add' || operation.op === 'replace' || operation.op === 'test' ? operation.value : undefined;
}

/** How much a patch may add and copy in all, in multiples of the body limit: a patch never costs more than that. */
const PATCH_WORK_LIMITS = 16;

/**
 * RFC 6902, all operations or none: a failing operation (a `test` too) leaves the stored configuration as it was.
 * The patched configuration may not grow past the body limit (a `PUT` could not store it either): its size is
 * checked between operations, so a patch of `copy` operations that doubles it each time is refused with 413
 * after a few of them, before anything is stored, never after building a document of gigabytes.
 */
export async function patchAppConfig(ctx: EmuContext, version: AppVersion, patch: JsonPatch): Promise<AppConfig> {
  const previous = findAppConfig(ctx, version.name);
  const limit = ctx.config.bodyLimit;
  const tooLarge = (i: number, operation: Operation) =>
    new HttpError(
      413,
      `The patch was not applied: after operation [${i}] (${operation.op} ${operation.path}) the ` +
        `configuration would be larger than the body limit of ${limit} bytes (flag --body-limit).`,
    );
  // One operation at a time on a copy, so that a failure names its operation (the library reports index 0 for some).
  // The copy's objects have no prototype: `/toString` is missing unless the configuration has that key.
  let patched: unknown = prototypeFree(previous ? previous.config : EMPTY_CONFIGURATION);
  // An upper bound of the document's size, kept without measuring the whole document after every operation.
  let estimate = jsonSizeUpTo(patched, limit);
  let work = 0;
  patch.forEach((item, i) => {
    // The schema checks `op` and `path`; the library checks the rest of the operation (`validate` true).
    const operation = item as Operation;
    const added = jsonSizeUpTo(addedValue(patched, operation), limit);
    if (added > limit) throw tooLarge(i, operation);
    work += added;
    if (work > PATCH_WORK_LIMITS * limit) {
      throw badRequest(
        `The patch was not applied: by operation [${i}] it adds, copies and tests more than ` +
          `${PATCH_WORK_LIMITS} times the body limit (${limit} bytes) in all.`,
      );
    }
    try {
      patched = applyStep(patched, operation, i);
    } catch (err) {
      throw patchFailure(err, i, operation);
    }
    if (operation.op !== 'test') estimate += added;
    if (estimate > limit) {
      estimate = jsonSizeUpTo(patched, limit);
      if (estimate > limit) throw tooLarge(i, operation);
    }
  });
  const record = newAppConfig(version, patched, ctx.clock.nowIso(), previous);
  await APP_CONFIGS.put(ctx, version.name, record);
  return record;
}
