import type { EmuContext } from '../../context.js';
import type { Endpoint } from '../epr/endpoints.js';
import { payloadText } from './payload.js';
import {
  appliedOfEndpoint,
  configsOfEndpoint,
  endpointConfigKey,
  findDefaultConfig,
  type AppliedRecord,
  type ConfigRecord,
} from './records.js';

function listingItem(record: ConfigRecord, applied: AppliedRecord | undefined) {
  return {
    appVersionName: record.appVersionName,
    ...(record.configName !== undefined ? { configName: record.configName } : {}),
    configId: record.configId,
    configContentType: record.contentType,
    config: payloadText(record),
    updatedDate: record.updatedDate,
    ...(applied?.appliedConfigId !== undefined
      ? { appliedConfigId: applied.appliedConfigId, appliedDate: applied.appliedDate }
      : {}),
    ...(applied?.rejection ? { rejection: applied.rejection } : {}),
  };
}

/**
 * `GET /endpoints/{endpointId}` of the registry: the endpoint's own configurations, each with what its device reported
 * applying. A version where the device applied the default configuration (it has none of its own) is listed with
 * that default, marked `defaultConfiguration: true` (docs/services/endpoint-configuration.md).
 */
export function configurationListing(ctx: EmuContext, endpoint: Endpoint) {
  const keyOf = (r: { appVersionName: string; configName?: string }) =>
    endpointConfigKey('', r.appVersionName, r.configName);
  const applied = new Map(appliedOfEndpoint(ctx, endpoint.endpointId).map((a) => [keyOf(a), a]));
  const items: Array<ReturnType<typeof listingItem> & { defaultConfiguration?: true }> = [];
  const own = new Set<string>();
  for (const record of configsOfEndpoint(ctx, endpoint.endpointId)) {
    own.add(keyOf(record));
    items.push(listingItem(record, applied.get(keyOf(record))));
  }
  for (const [key, report] of applied) {
    const fallback = own.has(key) ? undefined : findDefaultConfig(ctx, report.appVersionName, report.configName);
    if (fallback) items.push({ ...listingItem(fallback, report), defaultConfiguration: true });
  }
  // The default configuration first within a version, then the named ones by name.
  return items.sort(
    (a, b) =>
      a.appVersionName.localeCompare(b.appVersionName) || (a.configName ?? '').localeCompare(b.configName ?? ''),
  );
}
