import { randomUUID } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import type { Validators } from '../../server/conditional.js';
import { notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import { findTenantVersion, type AppVersion } from '../app-manager/applications.js';
import type { Endpoint } from '../epr/endpoints.js';
import { payloadText, type ConfigPayload } from './payload.js';
import type { appliedConfigRecord, configRecord } from './schemas.js';

export const ENDPOINT_CONFIGS = collection<ConfigRecord>('endpoint-configs').index('endpoint', (r) => r.endpointId);
export const DEFAULT_CONFIGS = collection<ConfigRecord>('default-configs').index('version', (r) => r.appVersionName);
export const APPLIED_CONFIGS = collection<AppliedRecord>('applied-configs').index('endpoint', (r) => r.endpointId);

/*
 * The record schemas name only the string fields an import must have; the rest is what we write. Describing those
 * fields there would refuse imports they take today, so the types add them.
 */

/**
 * A stored configuration: an endpoint's own for one application version, or (no `endpointId`) the version's default.
 * `configId` is new on every write; also the `ETag` value.
 */
export type ConfigRecord = FromSchema<typeof configRecord> &
  ConfigPayload & {
    endpointId?: string;
    /** A named configuration (7/CMP use case 3: `cmx` `config/json/<configName>`); absent for the default one. */
    configName?: string;
  };

/** What the endpoint's device reported on `cmx/.../applied/json` for one application version. */
export type AppliedRecord = FromSchema<typeof appliedConfigRecord> & {
  /** The named configuration reported on `applied/json/<configName>`; absent for the default one. */
  configName?: string;
  appliedConfigId?: string;
  appliedDate?: string;
  /** The last report, when it rejected a configuration (status 400 or more). */
  rejection?: { configId: string; statusCode: number; reasonPhrase?: string; date: string };
};

/**
 * Keys of the default configuration keep their old form (`endpointId/version`, `version`); a named one adds
 * `/<configName>`. Neither ids, version names nor configuration names hold a `/`, so keys never collide.
 */
export const endpointConfigKey = (endpointId: string, appVersionName: string, configName?: string) =>
  configName === undefined ? `${endpointId}/${appVersionName}` : `${endpointId}/${appVersionName}/${configName}`;

export const defaultConfigKey = (appVersionName: string, configName?: string) =>
  configName === undefined ? appVersionName : `${appVersionName}/${configName}`;

export function findEndpointConfig(
  ctx: EmuContext,
  endpointId: string,
  appVersionName: string,
  configName?: string,
): ConfigRecord | undefined {
  return ENDPOINT_CONFIGS.get(ctx, endpointConfigKey(endpointId, appVersionName, configName));
}

export function findDefaultConfig(
  ctx: EmuContext,
  appVersionName: string,
  configName?: string,
): ConfigRecord | undefined {
  return DEFAULT_CONFIGS.get(ctx, defaultConfigKey(appVersionName, configName));
}

/** The names of the named configurations an endpoint has for a version: its own and the version's defaults. */
export function configNamesFor(ctx: EmuContext, endpointId: string, appVersionName: string): string[] {
  const names = new Set<string>();
  for (const r of ENDPOINT_CONFIGS.lookup(ctx, 'endpoint', endpointId))
    if (r.appVersionName === appVersionName && r.configName !== undefined) names.add(r.configName);
  for (const r of DEFAULT_CONFIGS.lookup(ctx, 'version', appVersionName))
    if (r.configName !== undefined) names.add(r.configName);
  return [...names].sort();
}

export function configsOfEndpoint(ctx: EmuContext, endpointId: string): ConfigRecord[] {
  return ENDPOINT_CONFIGS.lookup(ctx, 'endpoint', endpointId).sort((a, b) =>
    a.appVersionName.localeCompare(b.appVersionName),
  );
}

export function findAppliedConfig(
  ctx: EmuContext,
  endpointId: string,
  appVersionName: string,
  configName?: string,
): AppliedRecord | undefined {
  return APPLIED_CONFIGS.get(ctx, endpointConfigKey(endpointId, appVersionName, configName));
}

export function appliedOfEndpoint(ctx: EmuContext, endpointId: string): AppliedRecord[] {
  return APPLIED_CONFIGS.lookup(ctx, 'endpoint', endpointId);
}

/** The next state of a configuration: a new `configId` on every write, the creation date kept. */
export function nextRecord(
  version: AppVersion,
  payload: ConfigPayload,
  now: string,
  previous: ConfigRecord | undefined,
  endpointId?: string,
  configName?: string,
): ConfigRecord {
  return {
    tenantId: version.tenantId,
    appName: version.appName,
    appVersionName: version.name,
    ...(endpointId !== undefined ? { endpointId } : {}),
    ...(configName !== undefined ? { configName } : {}),
    configId: randomUUID(),
    contentType: payload.contentType,
    kind: payload.kind,
    value: payload.value,
    createdDate: previous?.createdDate ?? now,
    updatedDate: now,
  };
}

/** `ETag` (the configId) and `Last-Modified` of a configuration, for conditional reads and writes. */
export const validatorsOf = (record: ConfigRecord | undefined): Validators | undefined =>
  record && { revision: record.configId, lastModified: record.updatedDate };

/** The configuration record of the envelope shape (spec 2). */
export const presentRecord = (record: ConfigRecord) => ({
  configId: record.configId,
  config: payloadText(record),
  createdDate: record.createdDate,
  updatedDate: record.updatedDate,
});

/** A version of the endpoint's application: an endpoint is configured per version of its own application only. */
export function requireVersionOfEndpoint(ctx: EmuContext, endpoint: Endpoint, appVersionName: string): AppVersion {
  const version = findTenantVersion(ctx, endpoint.tenantId, appVersionName);
  if (!version || version.appName !== endpoint.appName) {
    throw notFound(
      `Endpoint ${endpoint.endpointId} belongs to application ${endpoint.appName}, which has no version ` +
        `${appVersionName}.`,
    );
  }
  return version;
}
