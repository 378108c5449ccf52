import type { ClientResponse, EmulatorClient } from '../client/http-client.js';

/** What a device answered a command with, from the command record (an answer's empty body says nothing). */
export interface DeviceAnswer {
  statusCode: number;
  reasonPhrase?: string;
}

/** `POST .../endpoints/{endpointId}/commands/{commandType}` with any prefix and query. */
const INVOCATION = /^(\/(?:[^/?]+\/)?api\/v1\/endpoints\/[^/?]+\/commands\/[^/?]+)(?:\?.*)?$/;

/**
 * The device's status of a command the emulator answered 200 with an empty body: read from the endpoint's last
 * executed command of that type. Undefined for any other answer, or when the record has no status.
 */
export async function deviceAnswerOf(
  client: EmulatorClient,
  method: string,
  target: string,
  response: ClientResponse,
): Promise<DeviceAnswer | undefined> {
  if (method !== 'POST' || response.status !== 200 || response.raw.length > 0) return undefined;
  const invocation = INVOCATION.exec(target);
  if (!invocation) return undefined;
  const last = await client.request('GET', `${invocation[1]}/last`);
  const record =
    last.status === 200 ? (last.json as { statusCode?: unknown; reasonPhrase?: unknown } | undefined) : undefined;
  if (typeof record?.statusCode !== 'number') return undefined;
  return {
    statusCode: record.statusCode,
    ...(typeof record.reasonPhrase === 'string' ? { reasonPhrase: record.reasonPhrase } : {}),
  };
}

/** A device status of 500 or more exits 5, 400-499 exits 4 (as an HTTP answer would); anything else says nothing. */
export function deviceExitCode(answer: DeviceAnswer | undefined): number | undefined {
  if (!answer) return undefined;
  if (answer.statusCode >= 500) return 5;
  if (answer.statusCode >= 400) return 4;
  return undefined;
}
