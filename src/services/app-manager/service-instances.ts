import type { EmuContext } from '../../context.js';
import { collection, type StoredRecord } from '../../store/index.js';

export const SERVICE_INSTANCES = collection<StoredRecord>('service-instances');

export interface ServiceInstance {
  name: string;
  serviceName: string;
  serviceGroup: string;
  description?: string;
  urlPrefix?: string;
  appConfigurationSchemaPresent: boolean;
  appConfigurationSchema?: unknown;
  appVersionConfigurationSchemaPresent: boolean;
  appVersionConfigurationSchema?: unknown;
}

export type SchemaInclude = 'appConfigurationSchema' | 'appVersionConfigurationSchema';

/**
 * One instance per service the emulator serves (so the list cannot drift from what is mounted),
 * with descriptions and configuration schemas from the fixtures' `serviceInstances` section (a service's own
 * `appVersionConfigurationSchema` where the fixtures give none).
 */
export function serviceInstances(ctx: EmuContext, include: readonly SchemaInclude[] = []): ServiceInstance[] {
  return ctx.services.map((service) => {
    const configured = SERVICE_INSTANCES.get(ctx, service.prefix) ?? {};
    const appSchema = configured.appConfigurationSchema;
    const versionSchema = configured.appVersionConfigurationSchema ?? service.appVersionConfigurationSchema;
    return {
      name: service.prefix,
      serviceName: service.prefix,
      serviceGroup: service.serviceGroup,
      description: (configured.description as string | undefined) ?? service.title,
      urlPrefix: `/${service.prefix}`,
      appConfigurationSchemaPresent: appSchema !== undefined,
      ...(include.includes('appConfigurationSchema') && appSchema !== undefined
        ? { appConfigurationSchema: appSchema }
        : {}),
      appVersionConfigurationSchemaPresent: versionSchema !== undefined,
      ...(include.includes('appVersionConfigurationSchema') && versionSchema !== undefined
        ? { appVersionConfigurationSchema: versionSchema }
        : {}),
    };
  });
}
