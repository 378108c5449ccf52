import type { EmuContext } from '../../context.js';
import type { Endpoint } from '../epr/endpoints.js';
import { endpointsOfApplication } from '../epr/endpoints.js';
import { configResource } from './config-name.js';
import { payloadValue } from './payload.js';
import {
  APPLIED_CONFIGS,
  configNamesFor,
  findAppliedConfig,
  findDefaultConfig,
  findEndpointConfig,
  endpointConfigKey,
  type AppliedRecord,
  type ConfigRecord,
} from './records.js';

/**
 * The KP1 answer of `cmx/.../config/json` (and of `cmx_ota`): the configuration the device should have. It carries a
 * status, as the platform's MQTT reference shows; the platform's solution clients reject one without `statusCode` 200.
 */
export interface DeviceConfiguration {
  configId: string;
  statusCode: 200;
  reasonPhrase: 'ok';
  config: unknown;
}

/** The one shape of a configuration (or software) message, answered or pushed. */
export const configMessage = (configId: string, config: unknown): DeviceConfiguration => ({
  configId,
  statusCode: 200,
  reasonPhrase: 'ok',
  config,
});

/** Spec 4: no configuration at all. */
export const NO_CONFIGURATION: DeviceConfiguration = configMessage('', null);

/**
 * What a device asking over `cmx` receives: its own configuration for its version, else the version's default. A
 * `configName` asks for that named configuration instead, looked up the same way and independently of the others.
 */
export function offeredConfig(ctx: EmuContext, endpoint: Endpoint, configName?: string): ConfigRecord | undefined {
  const version = endpoint.appVersion.name;
  return (
    findEndpointConfig(ctx, endpoint.endpointId, version, configName) ?? findDefaultConfig(ctx, version, configName)
  );
}

export function deviceConfiguration(ctx: EmuContext, endpoint: Endpoint, configName?: string): DeviceConfiguration {
  const record = offeredConfig(ctx, endpoint, configName);
  return record ? configMessage(record.configId, payloadValue(record)) : NO_CONFIGURATION;
}

/** The answer to a device that says which configuration it has: `{}` when that is the current one. */
export function configurationFor(
  ctx: EmuContext,
  endpoint: Endpoint,
  knownConfigId: string | undefined,
  configName?: string,
): DeviceConfiguration | Record<string, never> {
  const offered = deviceConfiguration(ctx, endpoint, configName);
  return knownConfigId !== undefined && knownConfigId === offered.configId ? {} : offered;
}

/** Tells the endpoint's device (observing or subscribed) its configuration now. */
export function pushConfiguration(ctx: EmuContext, endpoint: Endpoint, configName?: string): void {
  ctx.devices.push(
    endpoint,
    'cmx',
    configResource('config/json', configName),
    deviceConfiguration(ctx, endpoint, configName),
  );
}

/**
 * The configuration the device should have and has not applied yet: the one offered, when there is one and its
 * configId is not the one last reported applied for the endpoint's version (a rejected one is still pending).
 */
export function pendingConfiguration(
  ctx: EmuContext,
  endpoint: Endpoint,
  configName?: string,
): DeviceConfiguration | undefined {
  const offered = deviceConfiguration(ctx, endpoint, configName);
  if (offered.configId === '') return undefined;
  const applied = findAppliedConfig(ctx, endpoint.endpointId, endpoint.appVersion.name, configName)?.appliedConfigId;
  return applied === offered.configId ? undefined : offered;
}

/**
 * Spec 4: a device that connects receives its latest configuration if it has not applied it yet; so with each named
 * configuration, unless `told` (the resources it was already answered or pushed on this connection) has it.
 */
export function pushPendingConfigurations(ctx: EmuContext, endpoint: Endpoint, told: ReadonlySet<string>): void {
  const names = [undefined, ...configNamesFor(ctx, endpoint.endpointId, endpoint.appVersion.name)];
  for (const configName of names) {
    const resource = configResource('config/json', configName);
    if (told.has(`cmx/${resource}`)) continue;
    const pending = pendingConfiguration(ctx, endpoint, configName);
    if (pending) ctx.devices.push(endpoint, 'cmx', resource, pending);
  }
}

/** After a change of a version's configuration: every endpoint now on that version that the change reaches. */
export function pushToVersion(
  ctx: EmuContext,
  appName: string,
  appVersionName: string,
  reaches: (endpoint: Endpoint) => boolean,
  configName?: string,
): void {
  for (const endpoint of endpointsOfApplication(ctx, appName)) {
    if (endpoint.appVersion.name === appVersionName && reaches(endpoint)) pushConfiguration(ctx, endpoint, configName);
  }
}

/** What a device reports on `cmx/.../applied/json`. */
export interface AppliedReport {
  configId: string;
  /** Default 200; anything but 2xx rejects the configuration. */
  statusCode: number;
  reasonPhrase?: string;
}

/** 7/CMP: a configuration is applied only with a 2xx status; "any other status codes MUST be treated as a failure". */
export const reportsApplied = (statusCode: number) => statusCode >= 200 && statusCode <= 299;

/**
 * Records a device's report for its current version: an accepted configuration becomes its `appliedConfigId`; a
 * rejection is kept beside the last accepted one. Any configId is recorded: the device says what it runs.
 */
export async function reportApplied(
  ctx: EmuContext,
  endpoint: Endpoint,
  report: AppliedReport,
  configName?: string,
): Promise<AppliedRecord> {
  const appVersionName = endpoint.appVersion.name;
  const now = ctx.clock.nowIso();
  const previous = findAppliedConfig(ctx, endpoint.endpointId, appVersionName, configName);
  const base = {
    tenantId: endpoint.tenantId,
    endpointId: endpoint.endpointId,
    appVersionName,
    ...(configName !== undefined ? { configName } : {}),
  };
  const next: AppliedRecord = reportsApplied(report.statusCode)
    ? { ...base, appliedConfigId: report.configId, appliedDate: now }
    : {
        ...base,
        ...(previous?.appliedConfigId !== undefined
          ? { appliedConfigId: previous.appliedConfigId, appliedDate: previous.appliedDate }
          : {}),
        rejection: {
          configId: report.configId,
          statusCode: report.statusCode,
          ...(report.reasonPhrase !== undefined ? { reasonPhrase: report.reasonPhrase } : {}),
          date: now,
        },
      };
  await APPLIED_CONFIGS.put(ctx, endpointConfigKey(endpoint.endpointId, appVersionName, configName), next);
  return next;
}
