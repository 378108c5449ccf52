import type { EmuContext } from '../../context.js';
import { notFound } from '../../server/errors.js';
import { requireTenantVersion, type AppVersion } from '../app-manager/applications.js';
import { endpointsOfApplication, requireEndpoint, type Endpoint } from '../epr/endpoints.js';
import { checkEndpointId } from './endpoint-id.js';
import { filterMatches, findFilter } from '../epr/filters.js';
import { pushConfiguration, pushToVersion } from './device.js';
import type { ConfigPayload } from './payload.js';
import {
  DEFAULT_CONFIGS,
  defaultConfigKey,
  findDefaultConfig,
  ENDPOINT_CONFIGS,
  findEndpointConfig,
  endpointConfigKey,
  nextRecord,
  requireVersionOfEndpoint,
  type ConfigRecord,
} from './records.js';
import { checkPayload } from './schema-check.js';

/**
 * `If-Match` / `If-Unmodified-Since` of the request, judged against the current record; throws 412 to stop the write.
 */
export type Precondition = (current: ConfigRecord | undefined) => void;

const reachesCurrentVersion = (endpoint: Endpoint, version: AppVersion) => endpoint.appVersion.name === version.name;

/**
 * Upserts an endpoint's configuration for a version. The precondition, the schema check and the commit run without a
 * pause between them, so of two writes with the same `If-Match` exactly one succeeds.
 */
export async function putEndpointConfig(
  ctx: EmuContext,
  endpoint: Endpoint,
  version: AppVersion,
  payload: ConfigPayload,
  precondition: Precondition,
  configName?: string,
): Promise<{ record: ConfigRecord; created: boolean }> {
  const previous = findEndpointConfig(ctx, endpoint.endpointId, version.name, configName);
  precondition(previous);
  checkPayload(ctx, version.name, payload);
  const record = nextRecord(version, payload, ctx.clock.nowIso(), previous, endpoint.endpointId, configName);
  await ENDPOINT_CONFIGS.put(ctx, endpointConfigKey(endpoint.endpointId, version.name, configName), record);
  if (reachesCurrentVersion(endpoint, version)) pushConfiguration(ctx, endpoint, configName);
  return { record, created: previous === undefined };
}

/** Removes an endpoint's own configuration; its device falls back to the version's default (or none). */
export async function deleteEndpointConfig(
  ctx: EmuContext,
  endpoint: Endpoint,
  version: AppVersion,
  precondition: Precondition,
  configName?: string,
): Promise<void> {
  const previous = findEndpointConfig(ctx, endpoint.endpointId, version.name, configName);
  if (!previous)
    throw notFound(
      `Endpoint ${endpoint.endpointId} has no ${describeConfig(configName)} for application version ${version.name}.`,
    );
  precondition(previous);
  await ENDPOINT_CONFIGS.delete(ctx, endpointConfigKey(endpoint.endpointId, version.name, configName));
  if (reachesCurrentVersion(endpoint, version)) pushConfiguration(ctx, endpoint, configName);
}

/** Upserts a version's default configuration; it reaches the version's endpoints that have none of their own. */
export async function putDefaultConfig(
  ctx: EmuContext,
  version: AppVersion,
  payload: ConfigPayload,
  precondition: Precondition,
  configName?: string,
): Promise<ConfigRecord> {
  const previous = findDefaultConfig(ctx, version.name, configName);
  precondition(previous);
  checkPayload(ctx, version.name, payload);
  const record = nextRecord(version, payload, ctx.clock.nowIso(), previous, undefined, configName);
  await DEFAULT_CONFIGS.put(ctx, defaultConfigKey(version.name, configName), record);
  pushToDefaultReach(ctx, version, configName);
  return record;
}

export async function deleteDefaultConfig(
  ctx: EmuContext,
  version: AppVersion,
  precondition: Precondition,
  configName?: string,
): Promise<void> {
  const previous = findDefaultConfig(ctx, version.name, configName);
  if (!previous) throw notFound(`Application version ${version.name} has no default ${describeConfig(configName)}.`);
  precondition(previous);
  await DEFAULT_CONFIGS.delete(ctx, defaultConfigKey(version.name, configName));
  pushToDefaultReach(ctx, version, configName);
}

/** A version's default (of that name) reaches the version's endpoints that have none of their own (of that name). */
function pushToDefaultReach(ctx: EmuContext, version: AppVersion, configName: string | undefined): void {
  pushToVersion(
    ctx,
    version.appName,
    version.name,
    (e) => !findEndpointConfig(ctx, e.endpointId, version.name, configName),
    configName,
  );
}

export const describeConfig = (configName: string | undefined) =>
  configName === undefined ? 'configuration' : `configuration named ${configName}`;

interface Target {
  endpoint: Endpoint;
  version: AppVersion;
}

/** The same payload for every target in one commit: all of them or, when any is refused, none. */
async function writeAll(ctx: EmuContext, targets: Target[], payload: ConfigPayload): Promise<ConfigRecord[]> {
  for (const versionName of new Set(targets.map((t) => t.version.name))) checkPayload(ctx, versionName, payload);
  const now = ctx.clock.nowIso();
  const records = targets.map(({ endpoint, version }) =>
    nextRecord(version, payload, now, findEndpointConfig(ctx, endpoint.endpointId, version.name), endpoint.endpointId),
  );
  await ctx.store.commit(
    records.map((r) => ENDPOINT_CONFIGS.putMutation(endpointConfigKey(r.endpointId!, r.appVersionName), r)),
  );
  for (const { endpoint, version } of targets)
    if (reachesCurrentVersion(endpoint, version)) pushConfiguration(ctx, endpoint);
  return records;
}

/** `PUT /endpoints/batch`: application version name to endpoint ids; every version and endpoint must exist. */
export async function writeBatch(
  ctx: EmuContext,
  tenantId: string,
  endpointsByVersion: Record<string, string[]>,
  payload: ConfigPayload,
): Promise<ConfigRecord[]> {
  const targets: Target[] = [];
  for (const [versionName, endpointIds] of Object.entries(endpointsByVersion)) {
    requireTenantVersion(ctx, tenantId, versionName);
    for (const endpointId of new Set(endpointIds)) {
      const endpoint = requireEndpoint(ctx, tenantId, checkEndpointId(endpointId));
      targets.push({ endpoint, version: requireVersionOfEndpoint(ctx, endpoint, versionName) });
    }
  }
  return writeAll(ctx, targets, payload);
}

/** `PUT /endpoints/filters/{filterId}`: every endpoint an active filter of that id matches, for its current version. */
export async function writeByFilter(
  ctx: EmuContext,
  tenantId: string,
  filterId: string,
  payload: ConfigPayload,
): Promise<ConfigRecord[]> {
  const filters = findFilter(ctx, tenantId, filterId).filter((f) => f.status === 'ACTIVE');
  if (filters.length === 0) throw notFound(`There is no active endpoint filter ${filterId}.`);
  const targets: Target[] = [];
  for (const filter of filters) {
    for (const endpoint of endpointsOfApplication(ctx, filter.applicationName)) {
      if (endpoint.tenantId !== tenantId || !filterMatches(filter, endpoint.metadata)) continue;
      targets.push({ endpoint, version: requireVersionOfEndpoint(ctx, endpoint, endpoint.appVersion.name) });
    }
  }
  targets.sort((a, b) => a.endpoint.endpointId.localeCompare(b.endpoint.endpointId));
  return writeAll(ctx, targets, payload);
}
