import { createServer, type AddressInfo } from 'node:net';
import type { Aedes, Client, PublishPacket } from 'aedes';
import { listeningUrl } from '../config.js';
import type { DevicePush, EmuContext } from '../context.js';
import { announceConnected } from './connected.js';
import { applyBrokerRules, isKp1Topic, isPlatformTopic, receivesBySubscription } from './broker-rules.js';
import { handleKp1 } from './dispatch.js';
import { limitPacketSize, maxPacketSize, PACKET_HEADROOM } from './packet-limit.js';
import { mqttAuthenticate } from './mqtt-auth.js';
import { sessionsOf, type QoS, type Session } from './sessions.js';
import { KP1_ROOT } from './topics.js';

export interface MqttGateway {
  port: number;
  url: string;
  devices: DevicePush;
  close(): Promise<void>;
}

/** Pushes the platform publishes without a request go out at least once. */
const PUSH_QOS: QoS = 1;
const noop = () => undefined;

function observe(session: Session, resourceKey: string, on: boolean, requestId: number | undefined, qos: QoS): void {
  if (!on) {
    session.observers.delete(resourceKey);
    session.muted.add(resourceKey);
    return;
  }
  session.muted.delete(resourceKey);
  if (requestId === undefined) return;
  let ids = session.observers.get(resourceKey);
  if (!ids) session.observers.set(resourceKey, (ids = new Map()));
  ids.set(requestId, qos);
}

/**
 * The embedded MQTT broker and the KP1 server on it. Publishes under `kp1/` are requests the gateway answers, and
 * the broker rules (broker-rules.ts) keep endpoints apart there; other topics are a plain broker. Like the platform's
 * KP1 server, replies and pushes reach the connection that speaks for the endpoint even when it never subscribed:
 * they are published to the subscriptions that name the token, and handed to that connection directly only when
 * none of its own does (never twice).
 */
export async function startMqtt(ctx: EmuContext, options: { host: string; port: number }): Promise<MqttGateway> {
  // The broker (aedes and its dependencies, about a fifth of the modules a start loaded) comes with the first
  // connection: until then no client subscribes to anything, so there is nothing to deliver, and a start that no
  // device connects to never loads it.
  let broker: Aedes | undefined;
  let rules: ReturnType<typeof applyBrokerRules> | undefined;
  let brokerReady: Promise<Aedes> | undefined;
  const sessions = sessionsOf(ctx);
  const queues = new Map<Client, Promise<void>>();

  // aedes drops a message for a client that already got one with a higher publish number from the same broker id
  // (its dedupe of overlapping subscriptions), and a QoS 1 or 2 publish reaches the subscribers a turn after a QoS 0
  // one or a direct delivery made later (aedes issue #994). So the gateway numbers its messages under broker ids
  // of their own, one per way they travel, each of which keeps its order: a push is never lost to a later reply.
  const sequenceOf = (route: 'subscribers' | 'direct', qos: QoS) => `${broker!.id}/kp1-${route}-${qos === 0 ? 'qos0' : 'qos12'}`;

  const deliver = (topic: string, payload: unknown, qos: QoS, client: Client | undefined) => {
    if (!broker || !rules) return;
    const body = Buffer.from(JSON.stringify(payload));
    const packet = (route: 'subscribers' | 'direct') =>
      ({ cmd: 'publish', topic, payload: body, qos, retain: false, dup: false, brokerId: sequenceOf(route, qos) }) as PublishPacket;
    broker.publish(packet('subscribers'), noop);
    if (client && !client.closed && !receivesBySubscription(client, topic)) rules.handOver(client, packet('direct'));
  };

  const handle = async (client: Client, topic: string, payload: Buffer, qos: QoS) => {
    // The connection speaks for the endpoint from the moment its token is known: pushes the request causes reach it.
    let seen: ReturnType<typeof sessions.seen> | undefined;
    const reply = await handleKp1(ctx, topic, payload, 'mqtt', (endpoint) => (seen = sessions.seen(endpoint.endpointId, 'mqtt', client)));
    if (seen && reply.ok && reply.observe !== undefined && reply.resourceKey) observe(seen.session, reply.resourceKey, reply.observe, reply.requestId, qos);
    if (reply.requestId !== undefined) {
      deliver(`${topic}/${reply.ok ? 'status' : 'error'}`, reply.payload, qos, client);
    } else if (!reply.ok) {
      const { statusCode, reasonPhrase } = reply.payload as { statusCode: number; reasonPhrase: string };
      ctx.log(`KP1 ${topic} from MQTT client ${client.id} failed with ${statusCode}: ${reasonPhrase} (no request id in the topic, so no reply was published)`);
    }
    if (seen?.started && reply.endpoint) {
      // What the device was told already: the answer to its first request, and the pushes that request caused.
      const told = new Set(seen.session.pushed);
      if (reply.ok && reply.requestId !== undefined && reply.resourceKey) told.add(reply.resourceKey);
      announceConnected(ctx, reply.endpoint, told);
    }
  };

  const createBroker = async (): Promise<Aedes> => {
    const { Aedes: Broker } = await import('aedes');
    const created = await Broker.createBroker({ authenticate: mqttAuthenticate(ctx) });
    rules = applyBrokerRules(created, ctx.log);
    // Requests of one connection are handled in order, as the device sent them.
    created.on('publish', (packet, client) => {
      if (!client || !isKp1Topic(packet.topic) || isPlatformTopic(packet.topic)) return;
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      const previous = queues.get(client) ?? Promise.resolve();
      const next = previous.then(() => handle(client, packet.topic, payload, packet.qos));
      queues.set(client, next);
      void next.finally(() => {
        if (queues.get(client) === next) queues.delete(client);
      });
    });
    created.on('clientDisconnect', (client) => sessions.disconnected(client));
    broker = created;
    return created;
  };

  const packetLimit = maxPacketSize(ctx.config.bodyLimit);
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    const connection = limitPacketSize(socket, packetLimit, (err, closed) => {
      const clientId = (closed as { client?: Client }).client?.id;
      const who = clientId ? `client ${clientId}` : `connection from ${socket.remoteAddress}`;
      ctx.log(`MQTT ${who} sent ${err.message} (the body limit, ${ctx.config.bodyLimit}, plus ${PACKET_HEADROOM / 1024} KiB): connection closed.`);
    });
    if (broker) broker.handle(connection);
    else
      (brokerReady ??= createBroker()).then(
        (ready) => ready.handle(connection),
        (err: Error) => {
          ctx.log(`MQTT broker could not start: ${err.message}`);
          connection.destroy();
        },
      );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    throw new Error(
      inUse
        ? `The MQTT port ${options.port} is in use (another broker, or another emulator?). Pick another with --mqtt-port, or 0 for a free one.`
        : `The MQTT port ${options.port} cannot be opened: ${(err as Error).message}`,
    );
  }
  const port = (server.address() as AddressInfo).port;

  const devices: DevicePush = {
    push(endpoint, extension, resource, payload) {
      const session = sessions.byEndpoint.get(endpoint.endpointId);
      const key = `${extension}/${resource}`;
      const base = `${KP1_ROOT}/${endpoint.appVersion.name}/${extension}/${endpoint.token}/${resource}`;
      if (session?.client) session.pushed.add(key);
      if (!session?.muted.has(key)) deliver(`${base}/status`, payload, PUSH_QOS, session?.client);
      for (const [requestId, qos] of session?.observers.get(key) ?? []) deliver(`${base}/${requestId}/status`, payload, qos, session?.client);
    },
  };

  return {
    port,
    url: listeningUrl('mqtt', options.host, port),
    devices,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Requests already received are answered before the connections close.
      await Promise.allSettled(queues.values());
      const started = await brokerReady?.catch(() => undefined);
      if (started) await new Promise<void>((resolve) => started.close(() => resolve()));
      await closed;
    },
  };
}
