import type { RunningEmulator } from '../../src/index.js';
import { api } from './emulator.js';

export const BCX = '/bcx/api/v1';
export const SM = `${BCX}/applications/smart-meter`;

/** An upload token the way a device gets one: KP1 `bcx/token` over HTTP. */
export async function uploadToken(
  emulator: RunningEmulator,
  endpointToken = 'meter-001-token',
  version = 'smart-meter-v1',
): Promise<string> {
  const reply = await api(emulator)('POST', `/kp1/${version}/bcx/${endpointToken}/token`);
  if (reply.status !== 200) throw new Error(`token: ${reply.status} ${reply.text}`);
  return reply.body.token;
}

/** An upload of `body` to `path` under /bcx/api/v1, with the upload token given. */
export function upload(emulator: RunningEmulator, path: string, body: Buffer | string, token?: string) {
  return api(emulator)('POST', `${BCX}${path}`, {
    rawBody: body,
    headers: { 'content-type': 'application/octet-stream', ...(token ? { 'x-auth-token': token } : {}) },
  });
}

/** A download: its status, headers and bytes. */
export async function download(emulator: RunningEmulator, path: string) {
  const response = await fetch(`${emulator.url}${path}`);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}
