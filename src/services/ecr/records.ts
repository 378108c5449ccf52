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
export const DEFAULT_CONFIGS = collection<ConfigRecord>('default-configs');
export const APPLIED_CONFIGS = collection<AppliedRecord>('applied-configs').index('endpoint', (r) => r.endpointId);

/*
 * The record schemas name only the string fields an import must have; the rest is what we write. Describing those
 * fields there would refuse imports they take today, so the types add them.
 */

/**
 * A stored configuration: an endpoint's own for one application version, or (no `endpointId`) the version's default.
 * `configId` is new on every write; also the `ETag` value.
 */
export type ConfigRecord = FromSchema<typeof configRecord> & ConfigPayload & { endpointId?: string };

/** What the endpoint's device reported on `cmx/.../applied/json` for one application version. */
export type AppliedRecord = FromSchema<typeof appliedConfigRecord> & {
  appliedConfigId?: string;
  appliedDate?: string;
  /** The last report, when it rejected a configuration (status 400 or more). */
  rejection?: { configId: string; statusCode: number; reasonPhrase?: string; date: string };
};

export const endpointConfigKey = (endpointId: string, appVersionName: string) => `${endpointId}/${appVersionName}`;

export function findEndpointConfig(
  ctx: EmuContext,
  endpointId: string,
  appVersionName: string,
): ConfigRecord | undefined {
  return ENDPOINT_CONFIGS.get(ctx, endpointConfigKey(endpointId, appVersionName));
}

export function findDefaultConfig(ctx: EmuContext, appVersionName: string): ConfigRecord | undefined {
  return DEFAULT_CONFIGS.get(ctx, appVersionName);
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
): AppliedRecord | undefined {
  return APPLIED_CONFIGS.get(ctx, endpointConfigKey(endpointId, appVersionName));
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
): ConfigRecord {
  return {
    tenantId: version.tenantId,
    appName: version.appName,
    appVersionName: version.name,
    ...(endpointId !== undefined ? { endpointId } : {}),
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
      `Endpoint ${endpoint.endpointId} belongs to application ${endpoint.appName}, which has no version ${appVersionName}.`,
    );
  }
  return version;
}
