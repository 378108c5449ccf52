import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { RunningEmulator } from '../../src/index.js';
import { api } from '../helpers/emulator.js';

export const CCM = '/ccm/api/v1';

export interface ClientCertificate {
  id: string;
  state: string;
  commonName: string;
  certificateChain: string;
  privateKey: string;
}

/** A client certificate the credentials manager generates (in the default tenant unless a token says otherwise). */
export async function generateCertificate(
  emulator: RunningEmulator,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<ClientCertificate> {
  const response = await api(emulator)<ClientCertificate>('POST', `${CCM}/x509-credentials/generate`, { body, token });
  if (response.status !== 201) throw new Error(`generate: ${response.status} ${response.text}`);
  return response.body;
}

export const setCertificateState = (emulator: RunningEmulator, id: string, state: string) =>
  api(emulator)('PATCH', `${CCM}/x509-credentials/${id}/state`, { body: { state } });

/**
 * An MQTTS connection trusting the emulator's root certificate: the client, or the CONNACK code / error of its refusal.
 */
export async function connectTls(
  emulator: RunningEmulator,
  options: IClientOptions = {},
): Promise<MqttClient | { refused: number | string }> {
  try {
    return await mqtt.connectAsync(emulator.mqttsUrl, {
      ca: emulator.caCertificate,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      ...options,
    });
  } catch (err) {
    const { code, message } = err as { code?: unknown; message: string };
    return { refused: typeof code === 'number' ? code : message };
  }
}

/** Resolves when the client's connection closes (the broker closed it). */
export const closed = (client: MqttClient) =>
  new Promise<void>((resolve) => (client.connected ? client.once('close', () => resolve()) : resolve()));

/** One KP1 request with request id 1 and its reply (`status` or `error`) on the same connection. */
export async function kp1Request(
  client: MqttClient,
  topic: string,
  payload: unknown,
): Promise<{ outcome: string; payload: unknown }> {
  await client.subscribeAsync(`${topic}/1/+`, { qos: 1 });
  const reply = new Promise<{ outcome: string; payload: unknown }>((resolve) => {
    client.on('message', (replyTopic, message) => {
      if (replyTopic.startsWith(`${topic}/1/`))
        resolve({
          outcome: replyTopic.slice(topic.length + 3),
          payload: message.length ? JSON.parse(message.toString()) : undefined,
        });
    });
  });
  await client.publishAsync(`${topic}/1`, JSON.stringify(payload), { qos: 1 });
  return reply;
}
