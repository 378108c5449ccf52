import type { Client } from 'aedes';
import type { EmuContext } from '../context.js';
import { announceConnected } from './connected.js';
import { handleKp1 } from './dispatch.js';
import type { MqttDelivery } from './mqtt-delivery.js';
import { sessionsOf, type QoS, type Session } from './sessions.js';

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

/** The KP1 requests of each connection, handled in the order the device sent them. */
export class MqttRequests {
  /** Per connection with a request being handled: the requests that came in meanwhile, and when all are done. */
  private readonly queues = new Map<Client, { waiting: Received[]; done: Promise<void> }>();
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
      return;
    }
    // A connection's requests in one loop, not a promise chained per message: devices send one at a time mostly.
    const started = { waiting: [] as Received[], done: Promise.resolve() };
    this.queues.set(client, started);
    started.done = this.drain(client, { topic, payload, qos }, started.waiting);
  }

  private async drain(client: Client, first: Received, waiting: Received[]): Promise<void> {
    for (let next: Received | undefined = first; next; next = waiting.shift()) {
      try {
        await answer(this.ctx, this.sessions, this.delivery, client, next.topic, next.payload, next.qos);
      } catch (err) {
        this.ctx.log(`KP1 ${next.topic} from MQTT client ${client.id}: ${(err as Error)?.stack ?? String(err)}`);
      }
    }
    this.queues.delete(client);
  }

  /** Resolves once every request received so far is answered. */
  async settled(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.done));
  }
}
