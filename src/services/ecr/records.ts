import { randomUUID } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import type { Validators } from '../../server/conditional.js';
import { notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { findTenantVersion, type AppVersion } from '../app-manager/applications.js';
import { findEndpoint, type Endpoint } from '../epr/endpoints.js';
import { payloadText, type ConfigPayload } from './payload.js';
import type { appliedConfigRecord, configRecord } from './schemas.js';

export const ENDPOINT_CONFIGS = 'endpoint-configs';
export const DEFAULT_CONFIGS = 'default-configs';
export const APPLIED_CONFIGS = 'applied-configs';

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

export function setupConfigIndexes(ctx: EmuContext): void {
  ctx.store.defineIndex(ENDPOINT_CONFIGS, 'endpoint', (r) => r.endpointId as string);
  ctx.store.defineIndex(APPLIED_CONFIGS, 'endpoint', (r) => r.endpointId as string);
}

export function endpointConfig(ctx: EmuContext, endpointId: string, appVersionName: string): ConfigRecord | undefined {
  return ctx.store.get<ConfigRecord>(ENDPOINT_CONFIGS, endpointConfigKey(endpointId, appVersionName));
}

export function defaultConfig(ctx: EmuContext, appVersionName: string): ConfigRecord | undefined {
  return ctx.store.get<ConfigRecord>(DEFAULT_CONFIGS, appVersionName);
}

export function configsOfEndpoint(ctx: EmuContext, endpointId: string): ConfigRecord[] {
  return ctx.store.lookup<ConfigRecord>(ENDPOINT_CONFIGS, 'endpoint', endpointId).sort((a, b) => a.appVersionName.localeCompare(b.appVersionName));
}

export function appliedOf(ctx: EmuContext, endpointId: string, appVersionName: string): AppliedRecord | undefined {
  return ctx.store.get<AppliedRecord>(APPLIED_CONFIGS, endpointConfigKey(endpointId, appVersionName));
}

export function appliedOfEndpoint(ctx: EmuContext, endpointId: string): AppliedRecord[] {
  return ctx.store.lookup<AppliedRecord>(APPLIED_CONFIGS, 'endpoint', endpointId);
}

/** The next state of a configuration: a new `configId` on every write, the creation date kept. */
export function nextRecord(version: AppVersion, payload: ConfigPayload, now: string, previous: ConfigRecord | undefined, endpointId?: string): ConfigRecord {
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

/** The tenant's endpoint; 404 otherwise. */
export function endpointOrNotFound(ctx: EmuContext, tenantId: string, endpointId: string): Endpoint {
  const endpoint = findEndpoint(ctx, tenantId, endpointId);
  if (!endpoint) throw notFound(`There is no endpoint ${endpointId}.`);
  return endpoint;
}

/** The tenant's application version; 404 otherwise. */
export function versionOrNotFound(ctx: EmuContext, tenantId: string, appVersionName: string): AppVersion {
  const version = findTenantVersion(ctx, tenantId, appVersionName);
  if (!version) throw notFound(`There is no application version ${appVersionName}.`);
  return version;
}

/** A version of the endpoint's application: an endpoint is configured per version of its own application only. */
export function versionOfEndpoint(ctx: EmuContext, endpoint: Endpoint, appVersionName: string): AppVersion {
  const version = findTenantVersion(ctx, endpoint.tenantId, appVersionName);
  if (!version || version.appName !== endpoint.appName) {
    throw notFound(`Endpoint ${endpoint.endpointId} belongs to application ${endpoint.appName}, which has no version ${appVersionName}.`);
  }
  return version;
}
