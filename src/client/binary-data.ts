import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { EmulatorHttpError, EmulatorUnreachableError, type EmulatorClient } from './http-client.js';
import type { Kp1Device } from './kp1-device.js';

/** What `POST /bcx/api/v1/binary-data` answered: the blob's descriptor and its `Location`. */
export interface UploadedBlob {
  id: string;
  name: string;
  size: number;
  url: string;
  location: string;
  createdDate: string;
}

/** A fresh upload token for the device's endpoint, over KP1 (`bcx/token`). */
export async function requestUploadToken(device: Kp1Device): Promise<string> {
  const reply = await device.request('bcx', 'token', {});
  const token = (reply.payload as { token?: unknown } | undefined)?.token;
  if (!reply.ok || typeof token !== 'string')
    throw new Error(`bcx/token was refused: ${reply.statusCode} ${reply.reasonPhrase ?? ''}`.trim());
  return token;
}

/** Uploads a file as a blob (`POST /bcx/api/v1/binary-data?name=...` with `X-Auth-Token`), streamed from disk. */
export async function uploadBlobFile(
  client: EmulatorClient,
  uploadToken: string,
  path: string,
  name = basename(path),
): Promise<UploadedBlob> {
  const { size } = await stat(path);
  const url = `${client.baseUrl}/bcx/api/v1/binary-data?name=${encodeURIComponent(name)}`;
  let response;
  try {
    // undici only when a file is uploaded: importing the package (and every simulated device) stays light.
    const { request } = await import('undici');
    response = await request(url, {
      method: 'POST',
      headers: {
        'x-auth-token': uploadToken,
        'content-type': 'application/octet-stream',
        'content-length': String(size),
      },
      body: createReadStream(path),
    });
  } catch (err) {
    throw new EmulatorUnreachableError(client.baseUrl, err as Error);
  }
  const text = await response.body.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.statusCode !== 201) throw new EmulatorHttpError(response.statusCode, 'POST', url, body);
  return { ...(body as Omit<UploadedBlob, 'location'>), location: String(response.headers.location ?? '') };
}
