import type { Client } from 'aedes';
import type { EmuContext } from '../context.js';
import { announceConnected } from './connected.js';
import { handleKp1 } from './dispatch.js';
import type { MqttDelivery } from './mqtt-delivery.js';
import { SizeLimitedConnection } from './packet-limit.js';
import { sessionsOf, type QoS, type Session } from './sessions.js';
import { WireConnection } from './wire.js';

type Sessions = ReturnType<typeof sessionsOf>;

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
 * One KP1 request published over MQTT: handled, its reply published, its observe kept, the endpoint announced online.
 */
async function answer(
  ctx: EmuContext,
  sessions: Sessions,
  delivery: MqttDelivery,
  client: Client,
  topic: string,
  payload: Buffer,
  qos: QoS,
): Promise<void> {
  // The connection speaks for the endpoint from the moment its token is known: pushes the request causes reach it.
  let seen: { session: Session; started: boolean } | undefined;
  const reply = await handleKp1(
    ctx,
    topic,
    payload,
    'mqtt',
    (endpoint) => (seen = sessions.seen(endpoint.endpointId, 'mqtt', client)),
  );
  if (seen && reply.ok && reply.observe !== undefined && reply.resourceKey)
    observe(seen.session, reply.resourceKey, reply.observe, reply.requestId, qos);
  if (reply.requestId !== undefined) {
    delivery.deliver(`${topic}/${reply.ok ? 'status' : 'error'}`, reply.payload, qos, client);
  } else if (!reply.ok) {
    const { statusCode, reasonPhrase } = reply.payload as { statusCode: number; reasonPhrase: string };
    ctx.log(
      `KP1 ${topic} from MQTT client ${client.id} failed with ${statusCode}: ${reasonPhrase} (no request id ` +
        `in the topic, so no reply was published)`,
    );
  }
  if (seen?.started && reply.endpoint) {
    // What the device was told already: the answer to its first request, and the pushes that request caused.
    const told = new Set(seen.session.pushed);
    if (reply.ok && reply.requestId !== undefined && reply.resourceKey) told.add(reply.resourceKey);
    announceConnected(ctx, reply.endpoint, told);
  }
}

interface Received {
  topic: string;
  payload: Buffer;
  qos: QoS;
}

/**
 * Requests of one connection waiting for the one being handled, past which the broker stops reading that connection
 * until half of them are answered: TCP then holds the device back, as a busy platform would, instead of the emulator
 * queueing without bound (a device that publishes in a loop without waiting for its replies).
 */
export const KP1_REQUESTS_WAITING = 256;

/**
 * Stops reading a client's connection, or reads it again: what it already delivered is still parsed, and TCP then
 * holds the sender back. (aedes reads a client's packets from `client.conn`; the typings do not show it.)
 */
function holdReading(client: Client, held: boolean): void {
  const connection = (client as Client & { conn?: unknown }).conn;
  if (connection instanceof SizeLimitedConnection || connection instanceof WireConnection) connection.hold(held);
}

interface Queue {
  waiting: Received[];
  done: Promise<void>;
  paused: boolean;
}

/** The KP1 requests of each connection, handled in the order the device sent them. */
export class MqttRequests {
  /** Per connection with a request being handled: the requests that came in meanwhile, and when all are done. */
  private readonly queues = new Map<Client, Queue>();
  /** Connections already told of (in the log) for sending faster than they are answered: once each. */
  private readonly heldBack = new WeakSet<Client>();
  private readonly sessions: Sessions;

  constructor(
    private readonly ctx: EmuContext,
    private readonly delivery: MqttDelivery,
  ) {
    this.sessions = sessionsOf(ctx);
  }

  received(client: Client, topic: string, payload: Buffer, qos: QoS): void {
    const queue = this.queues.get(client);
    if (queue) {
      queue.waiting.push({ topic, payload, qos });
      if (!queue.paused && queue.waiting.length >= KP1_REQUESTS_WAITING) this.pause(client, queue);
      return;
    }
    // A connection's requests in one loop, not a promise chained per message: devices send one at a time mostly.
    const started: Queue = { waiting: [], done: Promise.resolve(), paused: false };
    this.queues.set(client, started);
    started.done = this.drain(client, { topic, payload, qos }, started);
  }

  private async drain(client: Client, first: Received, queue: Queue): Promise<void> {
    for (let next: Received | undefined = first; next; next = queue.waiting.shift()) {
      try {
        await answer(this.ctx, this.sessions, this.delivery, client, next.topic, next.payload, next.qos);
      } catch (err) {
        this.ctx.log(`KP1 ${next.topic} from MQTT client ${client.id}: ${(err as Error)?.stack ?? String(err)}`);
      }
      if (queue.paused && queue.waiting.length <= KP1_REQUESTS_WAITING / 2) this.resume(client, queue);
    }
    this.queues.delete(client);
    if (queue.paused) this.resume(client, queue);
  }

  private pause(client: Client, queue: Queue): void {
    queue.paused = true;
    holdReading(client, true);
    if (this.heldBack.has(client)) return;
    this.heldBack.add(client);
    this.ctx.log(
      `MQTT client ${client.id} sends KP1 requests faster than they are answered: ${KP1_REQUESTS_WAITING} are ` +
        'waiting, so its connection is not read until half of them are answered (logged once per connection).',
    );
  }

  private resume(client: Client, queue: Queue): void {
    queue.paused = false;
    holdReading(client, false);
  }

  /** Resolves once every request received so far is answered. */
  async settled(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.done));
  }
}
