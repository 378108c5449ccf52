import { EmulatorClient, type EmulatorHealth } from '../client/http-client.js';

export interface EmulatorTarget {
  client: EmulatorClient;
  health: EmulatorHealth;
}

/**
 * The emulator's REST side, ready to call. A simulated device is a means to an end: against `--auth on`, a test
 * token is fetched from the emulator when none is given, rather than failing.
 */
export async function openEmulator(
  url: string,
  auth: { accessToken?: string; tenant?: string; adminToken?: string } = {},
): Promise<EmulatorTarget> {
  const client = new EmulatorClient(url, auth.accessToken);
  // With --auth on, test tokens come from the control plane, which takes the emulator's admin token.
  client.adminToken = auth.adminToken;
  const health = await client.health();
  if (health.auth === 'on' && !client.accessToken)
    client.accessToken = await client.issueToken({ tenant: auth.tenant });
  return { client, health };
}
