import { createServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Aedes, Client } from 'aedes';
import { listeningUrl } from '../config.js';
import { listenBrokerPort } from './listen-port.js';
import type { DevicePush, EmuContext } from '../context.js';
import { applyBrokerRules, isKp1Topic, isPlatformTopic } from './broker-rules.js';
import { MqttDelivery, mqttDevicePush } from './mqtt-delivery.js';
import { mqttAuthenticate } from './mqtt-auth.js';
import { useCredentials } from './credential-login.js';
import { MqttRequests } from './mqtt-requests.js';
import { logRefusedVersions } from './mqtt-versions.js';
import { limitPacketSize, maxPacketSize, PACKET_HEADROOM, type PacketTooLarge } from './packet-limit.js';
import { guardSessions } from './session-owners.js';
import { sessionsOf } from './sessions.js';
import { indexSubscriptions } from './subscription-index.js';
import { startWire } from './wire.js';

export interface MqttGateway {
  port: number;
  url: string;
  devices: DevicePush;
  /** Hands a connection of another listener (MQTT over TLS) to the same broker; the connection aedes reads. */
  handle(socket: Socket): Duplex;
  close(): Promise<void>;
}

/**
 * The broker: publishes under `kp1/` (but the platform's own topics) are KP1 requests; the broker rules keep endpoints
 * apart there.
 */
async function createBroker(ctx: EmuContext, delivery: MqttDelivery, requests: MqttRequests): Promise<Aedes> {
  const { Aedes: Broker } = await import('aedes');
  // concurrency 0: no bound on the messages aedes's emitter handles at once. With its default bound (100) a burst of
  // thousands of devices publishing at once queues, and the queue is drained by recursion, which overflows the stack
  // (bench figure 6e: 10,000 simulated devices starting at once killed the emulator).
  const broker = await Broker.createBroker({ authenticate: mqttAuthenticate(ctx), concurrency: 0 });
  if (!indexSubscriptions(broker))
    ctx.log(
      "aedes's emitter keeps its topic matcher where this build does not look (a later mqemitter than 7.1?): " +
        'subscriptions are matched by aedes alone, as correctly, more slowly at thousands of devices.',
    );
  delivery.attach(broker, applyBrokerRules(broker, ctx.log));
  guardSessions(ctx, broker);
  useCredentials(ctx, broker);
  broker.on('publish', (packet, client) => {
    if (!client || !isKp1Topic(packet.topic) || isPlatformTopic(packet.topic)) return;
    requests.received(
      client,
      packet.topic,
      Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
      packet.qos,
    );
  });
  const sessions = sessionsOf(ctx);
  broker.on('clientDisconnect', (client) => sessions.disconnected(client));
  logRefusedVersions(broker, ctx.log);
  return broker;
}

/** The log line of a connection closed for a packet over the limit. */
function logOversize(ctx: EmuContext, err: PacketTooLarge, closed: Duplex, remoteAddress: string | undefined): void {
  const clientId = (closed as { client?: Client }).client?.id;
  const who = clientId ? `client ${clientId}` : `connection from ${remoteAddress}`;
  ctx.log(
    `MQTT ${who} sent ${err.message} (the body limit, ${ctx.config.bodyLimit}, plus ` +
      `${PACKET_HEADROOM / 1024} KiB): connection closed.`,
  );
}

/** Hands a connection to the broker (started first if need be). */
function handTo(ctx: EmuContext, connection: Duplex, broker: Aedes | Promise<Aedes>): void {
  if (!(broker instanceof Promise)) {
    broker.handle(connection);
    return;
  }
  broker.then(
    (ready) => ready.handle(connection),
    (err: Error) => {
      ctx.log(`MQTT broker could not start: ${err.message}`);
      connection.destroy();
    },
  );
}

/** A socket of the main thread with the packet size limit (the wire thread checks its own). */
function limited(ctx: EmuContext, socket: Socket): Duplex {
  socket.setNoDelay(true);
  return limitPacketSize(socket, maxPacketSize(ctx.config.bodyLimit), (err, closed) =>
    logOversize(ctx, err, closed, socket.remoteAddress),
  );
}

/**
 * The embedded MQTT broker and the KP1 server on it; other topics than KP1 requests are a plain broker. The broker
 * (aedes and its dependencies, about a fifth of the modules a start loaded) comes with the first connection: until
 * then no client subscribes to anything, so there is nothing to deliver, and a start no device connects to never loads
 * it.
 */
export async function startMqtt(ctx: EmuContext, options: { host: string; port: number }): Promise<MqttGateway> {
  const delivery = new MqttDelivery();
  const requests = new MqttRequests(ctx, delivery);
  let broker: Aedes | undefined;
  let brokerReady: Promise<Aedes> | undefined;
  const startBroker = () =>
    (brokerReady ??= createBroker(ctx, delivery, requests).then((started) => (broker = started)));
  const listener = await listenForMqtt(ctx, options, (connection) => handTo(ctx, connection, broker ?? startBroker()));
  return {
    port: listener.port,
    url: listeningUrl('mqtt', options.host, listener.port),
    devices: mqttDevicePush(ctx, delivery),
    handle: (socket) => {
      const connection = limited(ctx, socket);
      handTo(ctx, connection, broker ?? startBroker());
      return connection;
    },
    close: async () => {
      const closed = listener.close();
      // Requests already received are answered before the connections close.
      await requests.settled();
      const started = await brokerReady?.catch(() => undefined);
      if (started) await new Promise<void>((resolve) => started.close(() => resolve()));
      await closed;
    },
  };
}

/**
 * The plain MQTT port: its sockets in the wire thread (`wire.ts`), or on the main thread where the thread's file is
 * not built (the tests that run the TypeScript source). `close` stops accepting and resolves once every connection
 * closed.
 */
async function listenForMqtt(
  ctx: EmuContext,
  options: { host: string; port: number },
  accepted: (connection: Duplex) => void,
): Promise<{ port: number; close(): Promise<void> }> {
  const wire = await startWire(
    { host: options.host, port: options.port, limit: maxPacketSize(ctx.config.bodyLimit) },
    {
      connection: accepted,
      oversize: (err, connection) => logOversize(ctx, err, connection, connection.remoteAddress),
      log: ctx.log,
    },
  );
  if (wire) return { port: wire.port, close: () => wire.close() };
  const server = createServer((socket) => accepted(limited(ctx, socket)));
  const port = await listenBrokerPort(server, { ...options, protocol: 'MQTT', flag: '--mqtt-port' });
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
