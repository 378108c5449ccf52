import { DEFAULT_EMULATOR_URL, EmulatorHttpError, EmulatorUnreachableError } from '../../client/http-client.js';
import { DeviceConnectError, SimulatorOptionsError } from '../../simulator/errors.js';
import { openEmulator, type EmulatorTarget } from '../../simulator/target.js';
import { readEmulatorLock } from '../../client/emulator-lock.js';
import { adminTokenFor, CliError, runningUrl, withHint } from '../shared.js';
import type { TargetOptions } from './options.js';

/** The emulator (`--url`, `PLATFORM_EMU_URL`, the lock of `--data-dir`, or the default URL), ready to call. */
export async function connectTarget(options: TargetOptions): Promise<EmulatorTarget> {
  const url = runningUrl(options) ?? DEFAULT_EMULATOR_URL;
  return openEmulator(url, { ...options, adminToken: adminTokenFor(url, options) }).catch((err: unknown) => {
    throw asCliError(err);
  });
}

/**
 * The MQTT URL: `--mqtt-url`, else what the emulator reports in `/_emu/health` or its lock (its MQTTS URL with
 * `--tls`).
 */
export function mqttUrlOf(
  target: EmulatorTarget | undefined,
  options: TargetOptions & { mqttUrl?: string },
  tls = false,
): string {
  if (options.mqttUrl) return options.mqttUrl;
  const lock = options.data ? readEmulatorLock(options.data) : undefined;
  const reported = tls
    ? ((target?.health.mqtts as { url?: string } | undefined)?.url ?? lock?.mqttsUrl)
    : (target?.health.mqtt?.url ?? lock?.mqttUrl);
  if (typeof reported === 'string' && reported) return reported;
  throw new CliError(
    `The emulator at ${target?.client.baseUrl ?? 'the given URL'} reports no ${tls ? 'MQTTS' : 'MQTT'} URL; ` +
      `pass --mqtt-url ${tls ? 'mqtts' : 'mqtt'}://host:port.`,
  );
}

/** Failures the user can fix, as one line and an exit code: 2 for bad options (a rules file, a telemetry spec). */
export function asCliError(err: unknown): Error {
  if (err instanceof EmulatorHttpError && err.status === 401)
    return new CliError(
      withHint(
        err.message,
        'Pass --access-token <jwt> (platform-emu token), or give the admin token that gets one in ' +
          'PLATFORM_EMU_ADMIN_TOKEN (or --data of the emulator: its lock holds it).',
      ),
    );
  if (err instanceof EmulatorUnreachableError || err instanceof EmulatorHttpError || err instanceof DeviceConnectError)
    return new CliError(err.message);
  if (err instanceof SimulatorOptionsError) return new CliError(err.message, 2);
  return err as Error;
}
