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
import { limitPacketSize, maxPacketSize, PACKET_HEADROOM } from './packet-limit.js';
import { guardSessions } from './session-owners.js';
import { sessionsOf } from './sessions.js';

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

/** A connection with the packet size limit, handed to the broker (started first if need be). */
function accept(ctx: EmuContext, socket: Socket, broker: Aedes | Promise<Aedes>): Duplex {
  socket.setNoDelay(true);
  const limit = maxPacketSize(ctx.config.bodyLimit);
  const connection = limitPacketSize(socket, limit, (err, closed) => {
    const clientId = (closed as { client?: Client }).client?.id;
    const who = clientId ? `client ${clientId}` : `connection from ${socket.remoteAddress}`;
    ctx.log(
      `MQTT ${who} sent ${err.message} (the body limit, ${ctx.config.bodyLimit}, plus ` +
        `${PACKET_HEADROOM / 1024} KiB): connection closed.`,
    );
  });
  if (!(broker instanceof Promise)) {
    broker.handle(connection);
    return connection;
  }
  broker.then(
    (ready) => ready.handle(connection),
    (err: Error) => {
      ctx.log(`MQTT broker could not start: ${err.message}`);
      connection.destroy();
    },
  );
  return connection;
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
  const server = createServer((socket) => void accept(ctx, socket, broker ?? startBroker()));
  const port = await listenBrokerPort(server, {
    port: options.port,
    host: options.host,
    protocol: 'MQTT',
    flag: '--mqtt-port',
  });
  return {
    port,
    url: listeningUrl('mqtt', options.host, port),
    devices: mqttDevicePush(ctx, delivery),
    handle: (socket) => accept(ctx, socket, broker ?? startBroker()),
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Requests already received are answered before the connections close.
      await requests.settled();
      const started = await brokerReady?.catch(() => undefined);
      if (started) await new Promise<void>((resolve) => started.close(() => resolve()));
      await closed;
    },
  };
}
