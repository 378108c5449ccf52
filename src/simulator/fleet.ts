import type { EmulatorClient } from '../client/http-client.js';
import { registerEndpoint } from '../client/endpoints.js';
import { Kp1Device } from '../client/kp1-device.js';
import { DeviceSimulation, type DeviceBehaviour } from './device.js';
import { DeviceConnectError, type ConnectFailure } from './errors.js';
import { DeviceEvents, type DeviceEvent } from './events.js';

export interface MqttLogin {
  username: string;
  password?: string;
}

/** MQTT over TLS: the root certificate to trust, and for mutual TLS the client certificate and key (PEM). */
export interface TlsLogin {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
}

/** One device to simulate: its token, and its endpoint id (to register, or as known). */
export interface DeviceIdentity {
  token?: string;
  endpointId?: string;
}

export interface FleetOptions {
  appVersion: string;
  devices: DeviceIdentity[];
  mqttUrl: string;
  behaviour: DeviceBehaviour;
  /** Registers every device first (`POST /epr/api/v1/endpoints`); tokens and ids left out are generated. */
  registerWith?: EmulatorClient;
  /** The emulator's REST side, for `behaviour.upload`. */
  rest?: EmulatorClient;
  /** MQTT login of every device (CONNECT username and password). */
  login?: MqttLogin;
  /** With an `mqtts://` URL: what the TLS connection trusts and presents. */
  tls?: TlsLogin;
  /** The QoS of every device's requests (default 0, as the platform's tutorial clients publish). */
  qos?: 0 | 1;
  /** Every event of every device, as it happens (also those before the devices are returned). */
  onEvent?: (event: DeviceEvent) => void;
  /**
   * How many of its last events each device keeps for `events` and `next` (default 1000). The CLI keeps none: it
   * only reports them, and what a large fleet keeps is most of its memory (10,000 devices after a minute: 1.6 GB
   * keeping them, 0.8 GB not; docs/performance.md, round fifteen).
   */
  keepEvents?: number;
}

/** Opening connections at once is fast; a bound keeps a large fleet from flooding the broker. */
const CONNECT_CONCURRENCY = 20;

/**
 * Devices going through their start (metadata, configuration, software, polls, upload: a request and reply each) at
 * once: ten thousand at once would ask the emulator tens of thousands of questions in one moment, and the last answers
 * would come after the device's reply timeout.
 */
const START_CONCURRENCY = 200;

/** Runs `work` over `items`, at most `limit` at a time, keeping the order of the results. */
export async function inBatches<T, R>(
  items: T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Registers (when asked) and connects every device; starts them only once all are connected. When any cannot
 * connect, the others are closed and a DeviceConnectError names each failure.
 */
export async function startFleet(options: FleetOptions): Promise<DeviceSimulation[]> {
  const devices = await connectFleet(options);
  await startDevices(devices, options.behaviour);
  return devices;
}

/**
 * Registers (when asked) and connects every device without starting any (no events but `registered`). When any
 * cannot connect, the others are closed and a DeviceConnectError names each failure.
 */
export async function connectFleet(options: FleetOptions): Promise<DeviceSimulation[]> {
  const logs = options.devices.map(() => new DeviceEvents(options.onEvent, options.keepEvents));
  const identities = options.registerWith ? await registerAll(options.registerWith, options, logs) : options.devices;
  const connections = await inBatches(identities, CONNECT_CONCURRENCY, ({ token }) => connectKp1(options, token!));
  const failures = connections.filter((c): c is ConnectFailure => !(c instanceof Kp1Device));
  if (failures.length > 0) {
    await Promise.all(connections.map((c) => (c instanceof Kp1Device ? c.close() : undefined)));
    throw new DeviceConnectError(failures);
  }
  return (connections as Kp1Device[]).map(
    (kp1, i) =>
      new DeviceSimulation(kp1, options.behaviour, options.mqttUrl, identities[i].endpointId, logs[i], options.rest),
  );
}

/**
 * Starts connected devices. Each device's samples start at its own point of the interval: a thousand devices
 * publishing in the same millisecond every interval would queue at the gateway (bench figure 6c). A fleet split over
 * workers gives each part its place in the whole (`first` of `total`), so the whole fleet is spread evenly.
 */
export async function startDevices(
  devices: DeviceSimulation[],
  behaviour: DeviceBehaviour,
  { first = 0, total = devices.length }: { first?: number; total?: number } = {},
): Promise<void> {
  const intervalMs = behaviour.telemetry?.intervalMs ?? 0;
  await inBatches(devices, START_CONCURRENCY, (device, i) =>
    device.start(total > 1 ? Math.floor(((first + i) * intervalMs) / total) : 0),
  );
}

/**
 * Connects, then asks the time: a wrong token or application version is refused at once rather than leaving a
 * device that never hears of its commands, and the connection now speaks for the endpoint (spec 4, Pushes).
 */
async function connectKp1(
  { mqttUrl, appVersion, login, tls, qos }: FleetOptions,
  token: string,
): Promise<Kp1Device | ConnectFailure> {
  let device: Kp1Device;
  try {
    device = await Kp1Device.connect({ mqttUrl, appVersion, token, ...login, ...tls, qos });
  } catch (err) {
    return { token, message: connectFailure(mqttUrl, err as Error & { code?: unknown }, login) };
  }
  const reply = await device
    .time()
    .catch((err: Error) => ({ ok: false, statusCode: undefined, reasonPhrase: err.message }));
  if (reply.ok) return device;
  await device.close();
  const status = reply.statusCode ? `${reply.statusCode} ` : '';
  return {
    token,
    message:
      `The broker at ${mqttUrl} refused the token for ${appVersion}: ${status}${reply.reasonPhrase ?? ''}`.trim(),
  };
}

/** CONNACK return codes 4 and 5 (MQTT 3.1.1): the login was refused. */
const LOGIN_REFUSALS: Record<number, (login: MqttLogin | undefined) => string> = {
  4: (login) => (login ? `bad user name or password (user name "${login.username}")` : 'bad user name or password'),
  5: (login) =>
    login
      ? 'not authorized'
      : 'not authorized: the broker requires a user name and password, or (MQTTS) a client certificate the ' +
        'credentials manager holds and that is neither suspended, revoked nor expired',
};

function connectFailure(mqttUrl: string, err: Error & { code?: unknown }, login: MqttLogin | undefined): string {
  const refusal = typeof err.code === 'number' ? LOGIN_REFUSALS[err.code] : undefined;
  if (refusal) return `The broker at ${mqttUrl} refused the connection (CONNACK ${err.code}): ${refusal(login)}.`;
  return `Cannot connect to ${mqttUrl}: ${err.message || err.code}`;
}

async function registerAll(
  client: EmulatorClient,
  options: FleetOptions,
  logs: DeviceEvents[],
): Promise<DeviceIdentity[]> {
  return inBatches(options.devices, CONNECT_CONCURRENCY, async (identity, i) => {
    const endpoint = await registerEndpoint(client, {
      appVersion: options.appVersion,
      token: identity.token,
      endpointId: identity.endpointId,
    });
    logs[i].emit({
      event: 'registered',
      token: endpoint.token,
      endpointId: endpoint.endpointId,
      appVersion: endpoint.appVersion,
    });
    return { token: endpoint.token, endpointId: endpoint.endpointId };
  });
}
