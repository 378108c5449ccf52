import greaterVersion from 'semver/functions/gt.js';
import type { EmuContext } from '../../context.js';
import { endpointsOfApplication, writeMetadata, type Endpoint } from '../epr/endpoints.js';
import { configMessage, reportsApplied, type DeviceConfiguration } from '../ecr/device.js';
import { filterMatches, filtersOfApplication } from '../epr/filters.js';
import { sameVersion, softwareOf, type Software } from './software.js';

/** The endpoint metadata key holding the software version the device last reported applied (`cmx_ota`). */
export const SOFTWARE_VERSION_KEY = 'softwareVersion';

export function currentSoftwareVersion(endpoint: Endpoint): string | undefined {
  const value = endpoint.metadata[SOFTWARE_VERSION_KEY];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The upgrade graph: from a version listed in `upgradableFrom`; an endpoint with no version, to software listing none.
 */
export function upgradesFrom(software: Software, current: string | undefined): boolean {
  if (current === undefined) return software.upgradableFrom.length === 0;
  return software.upgradableFrom.some((v) => sameVersion(v, current));
}

/** `targeted`: the endpoint matches an active filter of the software whose rollout date (if any) has passed. */
function targets(ctx: EmuContext, software: Software, endpoint: Endpoint, at: number): boolean {
  const active = filtersOfApplication(ctx, software.appName).filter((f) => f.status === 'ACTIVE');
  return software.filters.some(
    (rollout) =>
      (rollout.rolloutDate === undefined || Date.parse(rollout.rolloutDate) <= at) &&
      active.some((f) => f.filterId === rollout.filterId && filterMatches(f, endpoint.metadata)),
  );
}

function rollsOutTo(ctx: EmuContext, software: Software, endpoint: Endpoint, at: number): boolean {
  switch (software.rolloutStrategy) {
    case 'suspended':
      return false;
    case 'general':
      return true;
    case 'targeted':
      return targets(ctx, software, endpoint, at);
  }
}

/**
 * The rollout rule (docs/services/ota.md): among the application's software that the upgrade graph leads to from the
 * endpoint's current version and whose strategy lets it reach the endpoint, the highest version; undefined for none.
 */
export function offeredSoftware(ctx: EmuContext, endpoint: Endpoint, at = ctx.clock.nowMs()): Software | undefined {
  const current = currentSoftwareVersion(endpoint);
  let best: Software | undefined;
  for (const software of softwareOf(ctx, endpoint.appName)) {
    if (!upgradesFrom(software, current) || !rollsOutTo(ctx, software, endpoint, at)) continue;
    if (!best || greaterVersion(software.version, best.version)) best = software;
  }
  return best;
}

/** The KP1 answer of `cmx_ota/.../config/json`: the software version offered and its specification. */
export type SoftwareOffer = DeviceConfiguration;

export const NO_SOFTWARE: SoftwareOffer = configMessage('', null);

export function softwareOffer(ctx: EmuContext, endpoint: Endpoint, at?: number): SoftwareOffer {
  const software = offeredSoftware(ctx, endpoint, at);
  return software ? configMessage(software.version, software.specification ?? null) : NO_SOFTWARE;
}

/** The answer to a device that says which version it would take: `{}` when that is the one offered. */
export function softwareFor(
  ctx: EmuContext,
  endpoint: Endpoint,
  knownVersion: string | undefined,
): SoftwareOffer | Record<string, never> {
  const offer = softwareOffer(ctx, endpoint);
  return knownVersion !== undefined && knownVersion === offer.configId ? {} : offer;
}

function pushOffer(ctx: EmuContext, endpoint: Endpoint, offer: SoftwareOffer): void {
  ctx.devices.push(endpoint, 'cmx_ota', 'config/json', offer);
}

/** What each endpoint of the application is offered now (or at `at`), by endpointId. */
export function offersOfApplication(ctx: EmuContext, appName: string, at?: number): Map<string, string> {
  return new Map(endpointsOfApplication(ctx, appName).map((e) => [e.endpointId, softwareOffer(ctx, e, at).configId]));
}

/** Pushes the offer to every endpoint of the application whose offer is not what it was (`before`). */
export function pushChangedOffers(ctx: EmuContext, appName: string, before: Map<string, string>, at?: number): void {
  for (const endpoint of endpointsOfApplication(ctx, appName)) {
    const offer = softwareOffer(ctx, endpoint, at);
    if (offer.configId !== (before.get(endpoint.endpointId) ?? '')) pushOffer(ctx, endpoint, offer);
  }
}

/** What a device reports on `cmx_ota/.../applied/json`. */
export interface SoftwareReport {
  configId: string;
  statusCode: number;
  reasonPhrase?: string;
}

/**
 * An accepted report makes the version the endpoint's current software (metadata `softwareVersion`, through the
 * endpoint register); its next offer follows the graph from there and is pushed when it changed. A rejection (any
 * status but 2xx) changes nothing: the device stays on its version and is offered the same software again.
 */
export async function reportSoftwareApplied(
  ctx: EmuContext,
  endpoint: Endpoint,
  report: SoftwareReport,
): Promise<void> {
  if (!reportsApplied(report.statusCode)) {
    ctx.log(
      `Endpoint ${endpoint.endpointId} rejected software ${report.configId}: ` +
        `${report.statusCode}${report.reasonPhrase ? ` ${report.reasonPhrase}` : ''}`,
    );
    return;
  }
  const before = softwareOffer(ctx, endpoint).configId;
  const updated = await writeMetadata(ctx, endpoint, { [SOFTWARE_VERSION_KEY]: report.configId }, true);
  const after = softwareOffer(ctx, updated);
  if (after.configId !== before) pushOffer(ctx, updated, after);
}
