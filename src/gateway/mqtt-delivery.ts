import type { Aedes, Client, PublishPacket } from 'aedes';
import type { DevicePush, EmuContext } from '../context.js';
import { receivesBySubscription, type applyBrokerRules } from './broker-rules.js';
import { sessionsOf, type QoS } from './sessions.js';
import { KP1_ROOT } from './topics.js';

/** Pushes the platform publishes without a request go out at least once. */
const PUSH_QOS: QoS = 1;
/** The payload of a success without one (spec 4): zero bytes, which nothing can change, so one serves every reply. */
const NO_PAYLOAD = Buffer.alloc(0);

/**
 * Publishes the gateway's replies and pushes once the broker runs (before the first connection nobody could get
 * them). Like the platform's KP1 server, a message reaches the connection that speaks for the endpoint even when it
 * never subscribed: it is published to the subscriptions that name the token, and handed to that connection
 * directly only when none of its own does (never twice).
 */
export class MqttDelivery {
  private rules: ReturnType<typeof applyBrokerRules> | undefined;
  private brokerIds: BrokerIds | undefined;

  attach(broker: Aedes, rules: ReturnType<typeof applyBrokerRules>): void {
    this.rules = rules;
    this.brokerIds = brokerIdsOf(broker);
  }

  deliver(topic: string, payload: unknown, qos: QoS, client: Client | undefined): void {
    const { rules, brokerIds } = this;
    if (!rules || !brokerIds) return;
    const body = payload === undefined ? NO_PAYLOAD : Buffer.from(JSON.stringify(payload));
    const receiver = client && !client.closed ? client : undefined;
    const bySubscription = receiver !== undefined && receivesBySubscription(receiver, topic);
    rules.publish(packetOf(topic, body, qos, brokerIds.subscribers), bySubscription ? receiver : undefined);
    if (receiver && !bySubscription) rules.handOver(receiver, packetOf(topic, body, qos, brokerIds.direct));
  }
}

/** The broker ids of the gateway's messages by the way they travel, for QoS 0 and for QoS 1 or 2. */
interface BrokerIds {
  subscribers: [qos0: string, qos12: string];
  direct: [qos0: string, qos12: string];
}

/**
 * aedes drops a message for a client that already got one with a higher publish number from the same broker id (its
 * dedupe of overlapping subscriptions), and a QoS 1 or 2 publish reaches the subscribers a turn after a QoS 0 one or a
 * direct delivery made later (aedes issue #994). So the gateway numbers its messages under broker ids of their own,
 * one per way they travel, each of which keeps its order: a push is never lost to a later reply.
 */
function brokerIdsOf(broker: Aedes): BrokerIds {
  const ids = (route: string): [string, string] => [
    `${broker.id}/kp1-${route}-qos0`,
    `${broker.id}/kp1-${route}-qos12`,
  ];
  return { subscribers: ids('subscribers'), direct: ids('direct') };
}

function packetOf(topic: string, payload: Buffer, qos: QoS, brokerIds: [qos0: string, qos12: string]): PublishPacket {
  const brokerId = brokerIds[qos === 0 ? 0 : 1];
  return { cmd: 'publish', topic, payload, qos, retain: false, dup: false, brokerId } as PublishPacket;
}

/**
 * `ctx.devices` over MQTT: a push to the endpoint's status topic unless it muted it, and to each observer's request.
 */
export function mqttDevicePush(ctx: EmuContext, delivery: MqttDelivery): DevicePush {
  const sessions = sessionsOf(ctx);
  return {
    push(endpoint, extension, resource, payload) {
      const session = sessions.byEndpoint.get(endpoint.endpointId);
      const key = `${extension}/${resource}`;
      const base = `${KP1_ROOT}/${endpoint.appVersion.name}/${extension}/${endpoint.token}/${resource}`;
      if (session?.client) session.pushed.add(key);
      if (!session?.muted.has(key)) delivery.deliver(`${base}/status`, payload, PUSH_QOS, session?.client);
      for (const [requestId, qos] of session?.observers.get(key) ?? [])
        delivery.deliver(`${base}/${requestId}/status`, payload, qos, session?.client);
    },
  };
}
