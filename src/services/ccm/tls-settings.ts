import type { EmuContext } from '../../context.js';
import type { FixtureSection } from '../../contract.js';
import { FixtureError } from '../../seed/errors.js';
import { collection, type StoredRecord } from '../../store/index.js';
import { findTenant } from '../tenant-manager/tenants.js';

export type ClientAuthMode = 'off' | 'required';
export const CLIENT_AUTH_MODES = ['off', 'required'] as const;

/**
 * A tenant's "TLS client certificate authentication" for the MQTT/TLS transport (the platform switches it per
 * tenant). One record per tenant that overrides `--tls-client-auth`; its id is the tenant id.
 */
export interface TlsSetting extends StoredRecord {
  tenantId: string;
  clientAuth: ClientAuthMode;
  updatedDate: string;
}

export const TLS_SETTINGS = collection<TlsSetting>('tls-settings');

/** What a tenant asks of MQTTS clients: its own setting, else the emulator's `--tls-client-auth`. */
export function clientAuthOf(ctx: EmuContext, tenantId: string): ClientAuthMode {
  return TLS_SETTINGS.get(ctx, tenantId)?.clientAuth ?? ctx.config.tlsClientAuth;
}

/** Whether every tenant requires a certificate: then a client without one is refused at CONNACK, whoever it is. */
export function clientAuthRequiredEverywhere(ctx: EmuContext): boolean {
  if (ctx.config.tlsClientAuth !== 'required') return false;
  for (const setting of TLS_SETTINGS.values(ctx)) if (setting.clientAuth === 'off') return false;
  return true;
}

/** The tenant's setting as the REST addition answers it: `inherited` when `--tls-client-auth` decides. */
export function presentTlsSetting(ctx: EmuContext, tenantId: string) {
  const own = TLS_SETTINGS.get(ctx, tenantId);
  return {
    clientAuth: clientAuthOf(ctx, tenantId),
    inherited: own === undefined,
    emulatorDefault: ctx.config.tlsClientAuth,
  };
}

/** `PUT /tls-settings`: `off`, `required`, or `null` to follow `--tls-client-auth` again. */
export async function setClientAuth(
  ctx: EmuContext,
  tenantId: string,
  clientAuth: ClientAuthMode | null,
): Promise<void> {
  if (clientAuth === null) {
    if (TLS_SETTINGS.get(ctx, tenantId)) await TLS_SETTINGS.delete(ctx, tenantId);
    return;
  }
  await TLS_SETTINGS.put(ctx, tenantId, { tenantId, clientAuth, updatedDate: ctx.clock.nowIso() });
}

/** `tlsSettings`: `[{ "tenantId": "acme", "clientAuth": "required" }]`, mutual TLS for that tenant's MQTTS clients. */
export const tlsSettingFixtures: FixtureSection = {
  key: 'tlsSettings',
  label: (s) => s.tenantId as string,
  item: {
    type: 'object',
    required: ['tenantId', 'clientAuth'],
    properties: { tenantId: { type: 'string' }, clientAuth: { enum: [...CLIENT_AUTH_MODES] } },
    additionalProperties: false,
  },
  async seed(ctx, items) {
    const seen = new Set<string>();
    const made: TlsSetting[] = [];
    for (const item of items as Array<{ tenantId: string; clientAuth: ClientAuthMode }>) {
      if (!findTenant(ctx, item.tenantId))
        throw new FixtureError(`tlsSettings (${item.tenantId}): there is no tenant ${item.tenantId}.`);
      if (seen.has(item.tenantId))
        throw new FixtureError(`tlsSettings (${item.tenantId}): the tenant is listed twice.`);
      seen.add(item.tenantId);
      made.push({ tenantId: item.tenantId, clientAuth: item.clientAuth, updatedDate: ctx.clock.nowIso() });
    }
    await ctx.store.commit(made.map((s) => TLS_SETTINGS.putMutation(s.tenantId, s)));
  },
};
