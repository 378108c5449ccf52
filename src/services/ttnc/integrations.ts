import type { EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type {
  ConnectionState,
  DeviceInput,
  IntegrationInput,
  integrationRecord,
  IntegrationStatus,
  NetworkServerReport,
} from './schemas.js';
import { findApplication, findTenantVersion } from '../app-manager/applications.js';
import { findEndpoint } from '../epr/endpoints.js';

export const INTEGRATIONS = collection<Integration>('lns-integrations').index('tenant', (i) => i.tenantId);

export type { ConnectionState, DeviceInput, IntegrationInput, IntegrationStatus, NetworkServerReport };

/**
 * A device of the network server linked to an endpoint of the integration's application: its id, version and status
 * filled in.
 */
export type DeviceIntegration = DeviceInput & { id: number; appVersionName: string; status: IntegrationStatus };

/**
 * The record schema names only the string fields an import must have; the rest is what we write. Describing those
 * fields there would refuse imports it takes today, so the type adds them. `lnsApiKeyId` is write-only: never
 * answered, left out of exports (the descriptor's `secretFields`). `state`, `error` and `devices` are what the
 * (simulated) network server reports: set through `/_emu/lorawan` or the fixtures.
 */
export type Integration = FromSchema<typeof integrationRecord> & {
  id: number;
  lnsApiKeyId?: string;
  description?: string;
  status: IntegrationStatus;
  state: ConnectionState;
  error?: string;
  devices: DeviceIntegration[];
  createdAt: string;
  updatedAt: string;
};

export const DEVICE_COUNTER = 'lns-devices';

/**
 * The answer shape, field by field (never a copy of the record, so the API key cannot slip out):
 * `devices` only where spec 2 lists them (the single integration).
 */
export function presentIntegration(i: Integration, withDevices: boolean) {
  return {
    id: i.id,
    appName: i.appName,
    lnsUsername: i.lnsUsername,
    lnsIdentityServerHost: i.lnsIdentityServerHost,
    lnsPlainMqttServerUrl: i.lnsPlainMqttServerUrl,
    name: i.name,
    ...(i.description !== undefined ? { description: i.description } : {}),
    status: i.status,
    state: i.state,
    ...(i.error !== undefined ? { error: i.error } : {}),
    ...(withDevices ? { devices: i.devices.map((d) => ({ ...d })) } : {}),
  };
}

export function integrationsOfTenant(ctx: EmuContext, tenantId: string): Integration[] {
  return INTEGRATIONS.lookup(ctx, 'tenant', tenantId).sort((a, b) => a.id - b.id);
}

export function listIntegrations(
  ctx: EmuContext,
  tenantId: string,
  query: { applicationName?: string; status: IntegrationStatus },
): Integration[] {
  return integrationsOfTenant(ctx, tenantId).filter(
    (i) => i.status === query.status && (query.applicationName === undefined || i.appName === query.applicationName),
  );
}

/** The tenant's integration; another tenant's is as absent as one that does not exist. */
export function findIntegration(ctx: EmuContext, tenantId: string, id: number): Integration | undefined {
  const integration = INTEGRATIONS.get(ctx, String(id));
  return integration?.tenantId === tenantId ? integration : undefined;
}

export function requireIntegration(ctx: EmuContext, tenantId: string, id: number): Integration {
  const integration = findIntegration(ctx, tenantId, id);
  if (!integration) throw notFound(`There is no LoRaWAN integration ${id}.`);
  return integration;
}

/** Any tenant's integration, or 404: for the control plane, which sees them all. */
export function requireAnyIntegration(ctx: EmuContext, id: number): Integration {
  const integration = INTEGRATIONS.get(ctx, String(id));
  if (!integration) throw notFound(`There is no LoRaWAN integration ${id}.`);
  return integration;
}

/** Builds a new integration after the rules the schema cannot say: the application exists, names are not taken. */
export function newIntegration(ctx: EmuContext, tenantId: string, input: IntegrationInput, now: string): Integration {
  if (!findApplication(ctx, tenantId, input.appName)) throw badRequest(`There is no application ${input.appName}.`);
  for (const other of integrationsOfTenant(ctx, tenantId)) {
    if (other.appName === input.appName)
      throw conflict(`Application ${input.appName} is already used by integration ${other.id}.`);
    if (other.lnsUsername === input.lnsUsername)
      throw conflict(`The network server username ${input.lnsUsername} is already used by integration ${other.id}.`);
  }
  return {
    tenantId,
    id: INTEGRATIONS.nextId(ctx),
    appName: input.appName,
    lnsUsername: input.lnsUsername,
    ...(input.lnsApiKeyId !== undefined ? { lnsApiKeyId: input.lnsApiKeyId } : {}),
    lnsIdentityServerHost: input.lnsIdentityServerHost,
    lnsPlainMqttServerUrl: input.lnsPlainMqttServerUrl,
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    status: 'ACTIVE',
    state: 'CONNECTED',
    devices: [],
    createdAt: now,
    updatedAt: now,
  };
}

export async function createIntegration(
  ctx: EmuContext,
  tenantId: string,
  input: IntegrationInput,
): Promise<Integration> {
  const integration = newIntegration(ctx, tenantId, input, ctx.clock.nowIso());
  await INTEGRATIONS.put(ctx, String(integration.id), integration);
  return integration;
}

/** Devices checked against the integration's application: each linked to one of its endpoints, ids unique. */
export function linkDevices(
  ctx: EmuContext,
  integration: Pick<Integration, 'tenantId' | 'appName'>,
  inputs: DeviceInput[],
  where = 'devices',
): DeviceIntegration[] {
  const seen = { ids: new Set<number>(), lnsDeviceIds: new Set<string>(), endpointIds: new Set<string>() };
  return inputs.map((input, i) => {
    const at = `${where}[${i}]`;
    const endpoint = findEndpoint(ctx, integration.tenantId, input.endpointId);
    if (!endpoint || endpoint.appName !== integration.appName) {
      throw badRequest(
        `${at}: endpointId ${input.endpointId} is not an endpoint of application ${integration.appName}.`,
      );
    }
    const appVersionName = input.appVersionName ?? endpoint.appVersion.name;
    const version = findTenantVersion(ctx, integration.tenantId, appVersionName);
    if (!version || version.appName !== integration.appName)
      throw badRequest(
        `${at}: appVersionName ${appVersionName} is not a version of application ${integration.appName}.`,
      );
    if (seen.lnsDeviceIds.has(input.lnsDeviceId))
      throw badRequest(`${at}: lnsDeviceId ${input.lnsDeviceId} is listed twice.`);
    if (seen.endpointIds.has(input.endpointId))
      throw badRequest(`${at}: endpoint ${input.endpointId} is linked to two devices.`);
    if (input.id !== undefined && seen.ids.has(input.id)) throw badRequest(`${at}: id ${input.id} is listed twice.`);
    const id = input.id ?? ctx.store.nextId(DEVICE_COUNTER);
    seen.ids.add(id);
    seen.lnsDeviceIds.add(input.lnsDeviceId);
    seen.endpointIds.add(input.endpointId);
    return {
      id,
      appVersionName,
      lnsDeviceId: input.lnsDeviceId,
      endpointId: input.endpointId,
      name: input.name,
      ...(input.description !== undefined ? { description: input.description } : {}),
      status: input.status ?? 'ACTIVE',
    };
  });
}

/**
 * Applies what the network server would report. Moving to CONNECTED clears the error unless one is given;
 * `error: null` clears it; `devices` replaces the whole list.
 */
export function reported(
  ctx: EmuContext,
  integration: Integration,
  report: NetworkServerReport,
  now: string,
): Integration {
  const next: Integration = { ...integration, updatedAt: now };
  if (report.status) next.status = report.status;
  if (report.state) next.state = report.state;
  if (report.state === 'CONNECTED' && report.error === undefined) delete next.error;
  if (report.error === null) delete next.error;
  else if (report.error !== undefined) next.error = report.error;
  if (report.devices) {
    // A device listed again by its lnsDeviceId keeps its id.
    const known = new Map(integration.devices.map((d) => [d.lnsDeviceId, d.id]));
    next.devices = linkDevices(
      ctx,
      integration,
      report.devices.map((d) => ({ ...d, id: d.id ?? known.get(d.lnsDeviceId) })),
    );
  }
  return next;
}

/** `PATCH /_emu/lorawan/integrations/{id}`: the control plane sees every tenant's integrations. */
export async function reportNetworkServer(
  ctx: EmuContext,
  id: number,
  report: NetworkServerReport,
): Promise<Integration> {
  const integration = requireAnyIntegration(ctx, id);
  const next = reported(ctx, integration, report, ctx.clock.nowIso());
  await INTEGRATIONS.put(ctx, String(id), next);
  return next;
}

export function allIntegrations(ctx: EmuContext): Integration[] {
  return [...INTEGRATIONS.values(ctx)].sort((a, b) => a.id - b.id);
}
