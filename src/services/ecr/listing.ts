import type { EmuContext } from '../../context.js';
import type { Endpoint } from '../epr/endpoints.js';
import { payloadText } from './payload.js';
import {
  appliedOfEndpoint,
  configsOfEndpoint,
  findDefaultConfig,
  type AppliedRecord,
  type ConfigRecord,
} from './records.js';

function listingItem(record: ConfigRecord, applied: AppliedRecord | undefined) {
  return {
    appVersionName: record.appVersionName,
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
  const applied = new Map(appliedOfEndpoint(ctx, endpoint.endpointId).map((a) => [a.appVersionName, a]));
  const items: Array<ReturnType<typeof listingItem> & { defaultConfiguration?: true }> = [];
  const own = new Set<string>();
  for (const record of configsOfEndpoint(ctx, endpoint.endpointId)) {
    own.add(record.appVersionName);
    items.push(listingItem(record, applied.get(record.appVersionName)));
  }
  for (const report of applied.values()) {
    const fallback = own.has(report.appVersionName) ? undefined : findDefaultConfig(ctx, report.appVersionName);
    if (fallback) items.push({ ...listingItem(fallback, report), defaultConfiguration: true });
  }
  return items.sort((a, b) => a.appVersionName.localeCompare(b.appVersionName));
}
