import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { IClientOptions, MqttClient } from 'mqtt';

/** What a KP1 server answered to a request with a request id. */
export interface Kp1Reply {
  /** true for a `/status` reply, false for an `/error` reply. */
  ok: boolean;
  /** The error reply's `statusCode`; 200 for a `/status` reply. */
  statusCode: number;
  reasonPhrase?: string;
  /** The `/status` reply's payload (undefined when empty). */
  payload: unknown;
}

/** One outstanding command as the `cex` extension pushes it. */
export interface Kp1Command {
  id: number;
  payload: unknown;
}

export interface Kp1ConnectOptions {
  mqttUrl: string;
  appVersion: string;
  token: string;
  /** Default: `platform-emu-<pid>-<random hex>`; never the token, which is the device's credential. */
  clientId?: string;
  /** MQTT login (CONNECT username and password), checked by a broker with `--mqtt-auth basic`. */
  username?: string;
  password?: string;
  connectTimeoutMs?: number;
  /** How long a request waits for its `/status` or `/error` reply. */
  replyTimeoutMs?: number;
  /**
   * The QoS requests are published at. Default 0, as the platform's tutorial clients publish: the reply acknowledges
   * the request. 1 for firmware that publishes at QoS 1 (the broker then answers each with a PUBACK first).
   */
  qos?: 0 | 1;
  /** MQTT over TLS (an `mqtts://` URL): the root certificate (PEM) to trust, e.g. the emulator's `caCertificate`. */
  ca?: string | Buffer;
  /** MQTT over TLS: the client certificate (PEM, its chain may follow) and its private key, for mutual TLS. */
  cert?: string | Buffer;
  key?: string | Buffer;
}

interface Pending {
  topic: string;
  resolve: (reply: Kp1Reply) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

function parsePayload(message: Buffer): unknown {
  if (message.length === 0) return undefined;
  const text = message.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const STATUS = '/status';
const ERROR = '/error';

/** A reply's topic split: `<request topic>/<requestId>/status|error`. */
interface ReplyTopic {
  topic: string;
  requestId: number;
  /** `/status` (true) or `/error` (false). */
  ok: boolean;
}

/** Whether `text` is one or more decimal digits. */
function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** Splits a reply's topic (asked of every message a device receives: without a regular expression), or undefined. */
function replyOf(topic: string): ReplyTopic | undefined {
  const ok = topic.endsWith(STATUS);
  if (!ok && !topic.endsWith(ERROR)) return undefined;
  const idEnd = topic.length - (ok ? STATUS.length : ERROR.length);
  const idStart = topic.lastIndexOf('/', idEnd - 1) + 1;
  if (idStart === 0) return undefined;
  const id = topic.slice(idStart, idEnd);
  return isDigits(id) ? { topic: topic.slice(0, idStart - 1), requestId: Number(id), ok } : undefined;
}

/** A resource whose pushes the device listens to (`observe`). */
interface Watched {
  extension: string;
  resource: string;
  /**
   * `kp1/<v>/<extension>/<token>/<resource>`: pushes come on `<topic>/status` and `<topic>/<observeRequestId>/status`.
   */
  topic: string;
}

type ConnectionOptions = Required<
  Omit<Kp1ConnectOptions, 'clientId' | 'username' | 'password' | 'ca' | 'cert' | 'key'>
>;

/**
 * A device speaking KP1 over MQTT for one endpoint token: requests with request ids and their replies, the `cex`
 * command pushes, and the pushes of observed resources (`cmx`, `cmx_ota`). Emits `commands` (commandType,
 * Kp1Command[]), `push` (extension, resource, payload), `close` when the connection ends without `close()`, and
 * `transportError` (an MQTT client error). Exported by the package (docs/devices.md).
 */
export class Kp1Device extends EventEmitter {
  /** Request ids count from 0, as the platform's own tutorial clients do. */
  private nextRequestId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly replyFilters = new Map<string, Promise<unknown>>();
  /** Observed resources by push topic (`<topic>/status`), and by the request id of their observe request. */
  private readonly watchedTopics = new Map<string, Watched>();
  private readonly observeRequests = new Map<number, Watched>();
  private closing = false;
  private closed = false;
  /** `kp1/<appVersionName>/cex/<token>/command/`: the command pushes begin so. */
  private readonly commandPushes: string;

  private constructor(
    private readonly client: MqttClient,
    readonly options: ConnectionOptions,
  ) {
    super();
    this.commandPushes = `${this.base('cex')}/command/`;
    client.on('message', (topic, message) => this.receive(topic, message));
    client.on('close', () => {
      this.closed = true;
      this.failPending(closedError());
      if (!this.closing) this.emit('close');
    });
    client.on('error', (err) => this.emit('transportError', err));
  }

  /** Connects once (no automatic reconnect) and subscribes to the endpoint's command pushes. */
  static async connect(options: Kp1ConnectOptions): Promise<Kp1Device> {
    const resolved = { connectTimeoutMs: 5000, replyTimeoutMs: 10_000, ...options, qos: options.qos ?? 0 };
    const client = await connectOnce(resolved.mqttUrl, {
      clientId: options.clientId ?? `platform-emu-${process.pid}-${randomBytes(8).toString('hex')}`,
      ...(options.username !== undefined ? { username: options.username } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.cert !== undefined ? { cert: options.cert } : {}),
      ...(options.key !== undefined ? { key: options.key } : {}),
      reconnectPeriod: 0,
      connectTimeout: resolved.connectTimeoutMs,
      clean: true,
    });
    (client.stream as { setNoDelay?: (noDelay: boolean) => void }).setNoDelay?.(true);
    const {
      clientId: _clientId,
      username: _username,
      password: _password,
      ca: _ca,
      cert: _cert,
      key: _key,
      ...rest
    } = resolved;
    const device = new Kp1Device(client, rest);
    await client.subscribeAsync(`${device.base('cex')}/command/+/status`, { qos: 1 });
    return device;
  }

  get token(): string {
    return this.options.token;
  }

  /** `kp1/<appVersionName>/<extension>/<token>` */
  private base(extension: string): string {
    return `kp1/${this.options.appVersion}/${extension}/${this.options.token}`;
  }

  private topic(extension: string, resource: string): string {
    return resource ? `${this.base(extension)}/${resource}` : this.base(extension);
  }

  /** Publishes with a fresh request id and resolves with the `/status` or `/error` reply. */
  request(extension: string, resource: string, payload: unknown): Promise<Kp1Reply> {
    return this.send(extension, resource, payload);
  }

  /**
   * Listens to a resource's pushes and asks it with `{ ...payload, "observe": true }`: resolves with the reply; every
   * later push, on `<resource>/status` and on the observe request's reply topic, is a `push` event.
   */
  async observe(extension: string, resource: string, payload: Record<string, unknown> = {}): Promise<Kp1Reply> {
    this.assertOpen();
    const topic = this.topic(extension, resource);
    if (!this.watchedTopics.has(`${topic}/status`)) {
      const watched = { extension, resource, topic };
      this.watchedTopics.set(`${topic}/status`, watched);
      await this.client.subscribeAsync(`${topic}/status`, { qos: 1 });
    }
    return this.send(extension, resource, { ...payload, observe: true }, this.watchedTopics.get(`${topic}/status`));
  }

  private async send(extension: string, resource: string, payload: unknown, observing?: Watched): Promise<Kp1Reply> {
    this.assertOpen();
    const topic = this.topic(extension, resource);
    // One subscription per resource covers every reply: `<topic>/<requestId>/status|error`. At QoS 0, as the
    // platform's tutorial clients subscribe: the session is clean and never resumed, so a QoS 1 delivery would only
    // add a PUBACK per reply (docs/cli.md, `device simulate`).
    let subscribed = this.replyFilters.get(topic);
    if (!subscribed)
      this.replyFilters.set(topic, (subscribed = this.client.subscribeAsync(`${topic}/+/+`, { qos: 0 })));
    await subscribed;
    this.assertOpen();
    const requestId = this.nextRequestId++;
    const reply = new Promise<Kp1Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new Error(`No reply to ${topic}/${requestId} within ${this.options.replyTimeoutMs} ms.`));
      }, this.options.replyTimeoutMs);
      this.pending.set(requestId, { topic, resolve, reject, timer });
    });
    if (observing) this.observeRequests.set(requestId, observing);
    // close() may fail the reply while the publish is still being written (or waits for its PUBACK): the caller
    // hears of it below.
    reply.catch(() => undefined);
    try {
      await this.client.publishAsync(`${topic}/${requestId}`, payload === undefined ? '' : JSON.stringify(payload), {
        qos: this.options.qos,
      });
    } catch (err) {
      const pending = this.pending.get(requestId);
      if (pending) clearTimeout(pending.timer);
      this.pending.delete(requestId);
      this.observeRequests.delete(requestId);
      this.assertOpen();
      throw err;
    }
    return reply;
  }

  /** Reports command results on `cex/<token>/result/<commandType>`. */
  answer(
    commandType: string,
    results: Array<{ id: number; statusCode: number; reasonPhrase?: string; payload?: unknown }>,
  ): Promise<Kp1Reply> {
    return this.request('cex', `result/${commandType}`, results);
  }

  /** The time extension (`tsx`): a harmless request that shows whether the server accepts this token. */
  time(): Promise<Kp1Reply> {
    return this.request('tsx', '', {});
  }

  /** Asks for the outstanding commands of a type (polling); the reply payload is the array. */
  async poll(commandType: string): Promise<Kp1Command[]> {
    const reply = await this.request('cex', `command/${commandType}`, {});
    if (!reply.ok)
      throw new Error(`Polling ${commandType} commands failed: ${reply.statusCode} ${reply.reasonPhrase ?? ''}`.trim());
    return Array.isArray(reply.payload) ? (reply.payload as Kp1Command[]) : [];
  }

  private receive(topic: string, message: Buffer): void {
    const commandType = this.commandTypeOf(topic);
    if (commandType !== undefined) {
      const commands = parsePayload(message);
      this.emit('commands', commandType, Array.isArray(commands) ? commands : []);
      return;
    }
    const reply = replyOf(topic);
    if (!reply) {
      const watched = this.watchedTopics.get(topic);
      if (watched) this.emit('push', watched.extension, watched.resource, parsePayload(message));
      return;
    }
    const pending = this.pending.get(reply.requestId);
    const observed = this.observeRequests.get(reply.requestId);
    if (!pending) {
      // After the reply to an observe request, its reply topic carries the resource's pushes.
      if (observed?.topic === reply.topic && reply.ok)
        this.emit('push', observed.extension, observed.resource, parsePayload(message));
      return;
    }
    if (pending.topic !== reply.topic) return;
    this.pending.delete(reply.requestId);
    clearTimeout(pending.timer);
    const payload = parsePayload(message);
    if (reply.ok) {
      pending.resolve({ ok: true, statusCode: 200, payload });
      return;
    }
    this.observeRequests.delete(reply.requestId);
    const error = (payload ?? {}) as { statusCode?: unknown; reasonPhrase?: unknown };
    pending.resolve({
      ok: false,
      statusCode: typeof error.statusCode === 'number' ? error.statusCode : 500,
      reasonPhrase: typeof error.reasonPhrase === 'string' ? error.reasonPhrase : undefined,
      payload,
    });
  }

  /** The command type of a `cex` command push (`<base>/command/<commandType>/status`), or undefined. */
  private commandTypeOf(topic: string): string | undefined {
    if (!topic.startsWith(this.commandPushes) || !topic.endsWith(STATUS)) return undefined;
    const commandType = topic.slice(this.commandPushes.length, topic.length - STATUS.length);
    return commandType.length > 0 && !commandType.includes('/') ? commandType : undefined;
  }

  private assertOpen(): void {
    if (this.closing) throw stoppedError();
    if (this.closed) throw closedError();
  }

  private failPending(err: Error): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(err);
      this.pending.delete(id);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.failPending(stoppedError());
    // Once the connection is gone, a publish still waiting for its PUBACK never gets one: end without waiting for it.
    await this.client.endAsync(this.closed);
  }
}

const stoppedError = () => new Error('The device was stopped.');
const closedError = () => new Error('The MQTT connection closed.');

/**
 * Connects, failing (rather than waiting forever) when the connection closes before the CONNACK. The socket sends
 * at once (TCP noDelay): a PUBACK followed by a result PUBLISH would otherwise wait on Nagle's algorithm for the
 * broker's delayed ACK, about 40 ms per command round trip.
 */
async function connectOnce(url: string, options: IClientOptions): Promise<MqttClient> {
  // Loaded by the first connection: importing the package (for the emulator alone) does not pay for the MQTT client.
  const { connect } = await import('mqtt');
  const client = connect(url, options);
  (client.stream as Partial<Socket> | undefined)?.setNoDelay?.(true);
  return new Promise((resolve, reject) => {
    const settle = (outcome: () => void) => {
      client.off('connect', onConnect).off('error', onError).off('close', onClose);
      outcome();
    };
    const onConnect = () => settle(() => resolve(client));
    const fail = (err: Error) => {
      client.end(true);
      reject(err);
    };
    const onError = (err: Error) => settle(() => fail(err));
    const onClose = () => settle(() => fail(new Error('The connection closed before the broker accepted it.')));
    client.on('connect', onConnect).on('error', onError).on('close', onClose);
  });
}
