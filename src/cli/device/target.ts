import { resolve } from 'node:path';
import { DEFAULT_EMULATOR_URL, EmulatorClient, EmulatorHttpError, EmulatorUnreachableError, type EmulatorHealth } from '../../client/http-client.js';
import { readLock } from '../../store/index.js';
import { adminTokenFor, CliError, runningUrl } from '../shared.js';
import type { TargetOptions } from './options.js';

export interface Target {
  client: EmulatorClient;
  health: EmulatorHealth;
}

/** The emulator (`--url`, `PLATFORM_EMU_URL`, the lock of `--data`, or the default URL), ready to call. */
export async function connectTarget(options: TargetOptions): Promise<Target> {
  const client = new EmulatorClient(runningUrl(options) ?? DEFAULT_EMULATOR_URL, options.accessToken);
  client.adminToken = adminTokenFor(client.baseUrl, options);
  try {
    const health = await client.health();
    // A simulated device is a means to an end: against `--auth on`, fetch a token rather than fail.
    if (health.auth === 'on' && !client.accessToken) client.accessToken = await client.issueToken({ tenant: options.tenant });
    return { client, health };
  } catch (err) {
    throw asCliError(err);
  }
}

/** The MQTT URL: `--mqtt-url`, else what the emulator reports in `/_emu/health` or its lock. */
export function mqttUrlOf(target: Target | undefined, options: TargetOptions & { mqttUrl?: string }): string {
  if (options.mqttUrl) return options.mqttUrl;
  const reported = target?.health.mqtt?.url ?? (options.data ? readLock(resolve(options.data))?.mqttUrl : undefined);
  if (typeof reported === 'string' && reported) return reported;
  throw new CliError(`The emulator at ${target?.client.baseUrl ?? 'the given URL'} reports no MQTT URL; pass --mqtt-url mqtt://host:port.`);
}

export function asCliError(err: unknown): Error {
  if (err instanceof EmulatorHttpError && err.status === 401) return new CliError(`${err.message}. Pass --access-token <jwt> (platform-emu token).`);
  if (err instanceof EmulatorUnreachableError || err instanceof EmulatorHttpError) return new CliError(err.message);
  return err as Error;
}
