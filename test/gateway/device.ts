import { afterAll } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import type { RunningEmulator } from '../../src/index.js';
import { api } from '../helpers/emulator.js';

export interface Received {
  topic: string;
  /** Parsed JSON, or the text when it is not JSON. */
  payload: any;
  qos: number;
}

type QoS = 0 | 1 | 2;

/** A real MQTT client against the embedded broker, recording every message it receives. */
export class TestDevice {
  readonly messages: Received[] = [];
  private waiters: Array<{ match: (m: Received) => boolean; resolve: (m: Received) => void }> = [];
  private requestId = 0;

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, body, packet) => {
      const text = body.toString('utf8');
      let payload: unknown = text;
      try {
        payload = text === '' ? undefined : JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      const message = { topic, payload, qos: packet.qos };
      this.messages.push(message);
      this.waiters = this.waiters.filter((w) => !(w.match(message) && (w.resolve(message), true)));
    });
  }

  static async connect(emulator: RunningEmulator, clientId?: string): Promise<TestDevice> {
    const client = await mqtt.connectAsync(emulator.mqttUrl, { clientId, reconnectPeriod: 0 });
    const device = new TestDevice(client);
    afterAll(() => device.close());
    return device;
  }

  /** The first message (already received or still to come) that matches. */
  waitFor(match: (m: Received) => boolean, timeoutMs = 3000): Promise<Received> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.map((m) => m.topic))}`,
            ),
          ),
        timeoutMs,
      );
      this.waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  onTopic(topic: string): Received[] {
    return this.messages.filter((m) => m.topic === topic);
  }

  async publish(topic: string, payload: unknown = '', qos: QoS = 0): Promise<void> {
    const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
    await this.client.publishAsync(topic, body, { qos });
  }

  /** Publishes `<path>/<new request id>` and resolves with its reply (on `/status` or `/error`). */
  async request(
    path: string,
    payload: unknown = '',
    qos: QoS = 0,
    timeoutMs?: number,
  ): Promise<Received & { ok: boolean; requestTopic: string }> {
    const requestTopic = `${path}/${++this.requestId}`;
    const reply = this.waitFor(
      (m) => m.topic === `${requestTopic}/status` || m.topic === `${requestTopic}/error`,
      timeoutMs,
    );
    await this.publish(requestTopic, payload, qos);
    const message = await reply;
    return { ...message, ok: message.topic.endsWith('/status'), requestTopic };
  }

  async subscribe(filter: string, qos: QoS = 0): Promise<void> {
    await this.client.subscribeAsync(filter, { qos });
  }

  close(): Promise<void> {
    return this.client.endAsync(true);
  }
}

let registered = 0;

/** Registers an endpoint over REST (as a backend would) and returns its id and token. */
export async function registerEndpoint(
  emulator: RunningEmulator,
  appVersion = 'smart-meter-v1',
  metadata?: Record<string, unknown>,
) {
  const endpointId = `dev-${process.pid}-${++registered}`;
  const response = await api(emulator)('POST', '/epr/api/v1/endpoints', {
    body: {
      appVersion: { name: appVersion },
      endpointId,
      endpointToken: `${endpointId}-token`,
      ...(metadata ? { metadata } : {}),
    },
  });
  if (response.status !== 201) throw new Error(`register: ${response.status} ${response.text}`);
  return {
    endpointId,
    token: response.body.token as string,
    status: response.body.status as string,
    topic: (ext: string) => `kp1/${appVersion}/${ext}/${response.body.token}`,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The emulator's log, with a wait for a line (the broker logs what it drops or refuses). */
export function logRecorder() {
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  return {
    lines,
    log(line: string) {
      lines.push(line);
      for (const w of waiters.filter((w) => w.pattern.test(line))) w.resolve();
    },
    waitFor(pattern: RegExp, timeoutMs = 3000): Promise<void> {
      if (lines.some((line) => pattern.test(line))) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no log line like ${pattern} within ${timeoutMs} ms; got ${JSON.stringify(lines)}`)),
          timeoutMs,
        );
        waiters.push({ pattern, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

/**
 * Publishes `count` KP1 requests on `topic` (ids 1..count) without waiting between them, and resolves with the topics
 * of the replies to them, in the order they came (the connection's other messages, pushes, are left out). `meanwhile`
 * runs once they are all handed to the client.
 */
export async function floodRequests(
  client: MqttClient,
  topic: string,
  count: number,
  meanwhile: () => Promise<void> | void = () => undefined,
): Promise<string[]> {
  await client.subscribeAsync(`${topic}/+/+`);
  const replies: string[] = [];
  const all = new Promise<void>((resolve) =>
    client.on('message', (replyTopic) => {
      if (!replyTopic.startsWith(`${topic}/`)) return;
      replies.push(replyTopic);
      if (replies.length === count) resolve();
    }),
  );
  for (let id = 1; id <= count; id++) client.publish(`${topic}/${id}`, '{}', { qos: 0 });
  await meanwhile();
  await all;
  return replies;
}
