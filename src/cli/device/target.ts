import { InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { DEFAULT_EMULATOR_URL, EmulatorClient, EmulatorHttpError, EmulatorUnreachableError, type EmulatorHealth } from '../../client/index.js';
import { readLock } from '../../store/index.js';
import { CliError, dataOption, runningUrl, urlOption } from '../shared.js';

/** How the device commands find the emulator and authenticate to its REST side. */
export interface TargetOptions {
  url?: string;
  data?: string;
  accessToken?: string;
  tenant?: string;
}

export const targetOptions = (): Option[] => [
  urlOption(),
  dataOption(),
  new Option('--access-token <jwt>', 'bearer token for REST calls (default: with --auth on, a test token fetched from the emulator)').env('PLATFORM_EMU_TOKEN'),
  new Option('--tenant <id>', 'tenant of the fetched test token (default: the default tenant)'),
];

export interface Target {
  client: EmulatorClient;
  health: EmulatorHealth;
}

/** The emulator (`--url`, `PLATFORM_EMU_URL`, the lock of `--data`, or the default URL), ready to call. */
export async function connectTarget(options: TargetOptions): Promise<Target> {
  const client = new EmulatorClient(runningUrl(options) ?? DEFAULT_EMULATOR_URL, options.accessToken);
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

/** `--metadata`: a JSON object (a usage error otherwise). */
export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidArgumentError('expected a JSON object, like {"model":"m1"}.');
  return parsed as Record<string, unknown>;
}
