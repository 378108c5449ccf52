import type { Option } from 'commander';
import type { EmulatorClient } from '../client/http-client.js';
import { adminTokenFor, CliError, dataOption, runningUrl, urlOption, withHint } from './shared.js';

/** How the control-plane commands (reset, snapshot, logs, clock, faults) find the emulator. */
export interface ControlTarget {
  url?: string;
  data: string;
}

export const controlTargetOptions = (): Option[] => [urlOption(), dataOption()];

/**
 * The running emulator (`--url`, `PLATFORM_EMU_URL`, the lock of `--data`, or the default URL) with its admin token.
 */
export async function controlClient(options: ControlTarget): Promise<EmulatorClient> {
  const [{ EmulatorClient }, { DEFAULT_EMULATOR_URL }] = await Promise.all([
    import('../client/http-client.js'),
    import('../client/defaults.js'),
  ]);
  const client = new EmulatorClient(runningUrl(options) ?? DEFAULT_EMULATOR_URL);
  client.adminToken = adminTokenFor(client.baseUrl, options);
  return client;
}

/** One control-plane request whose success is expected: its parsed body, or a CliError with the emulator's message. */
export async function control<T = unknown>(
  options: ControlTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const client = await controlClient(options);
  const { EmulatorHttpError, EmulatorUnreachableError } = await import('../client/http-client.js');
  try {
    return (await client.json<T>(method, path, body)).body;
  } catch (err) {
    if (err instanceof EmulatorHttpError && err.status === 401) {
      throw new CliError(
        withHint(
          err.message,
          'Give the admin token in PLATFORM_EMU_ADMIN_TOKEN, or --data of the emulator (its lock holds it).',
        ),
      );
    }
    if (err instanceof EmulatorHttpError || err instanceof EmulatorUnreachableError) throw new CliError(err.message);
    throw err;
  }
}
