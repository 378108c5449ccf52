import type { Aedes, Client, PublishPacket } from 'aedes';
import { matchResource } from './extension.js';
import { extensions } from './extensions/index.js';
import { KP1_ROOT, topicMatches } from './topics.js';

/**
 * What the embedded broker lets through under `kp1/`. An endpoint token is the device's credential: a client that
 * knows it may act as the endpoint, one that does not must learn nothing. So a KP1 message reaches only
 * subscriptions that name its token literally, and the connections the gateway hands it to (the one that sent the
 * request, the one that speaks for the endpoint); only the gateway publishes replies and pushes; nothing under
 * `kp1/` is retained. Other topics are a plain broker, but for `$SYS/` (it would name every subscription).
 */

/** The fourth level of a KP1 topic: `kp1/<appVersionName>/<extension>/<endpointToken>/...`. */
const TOKEN_LEVEL = 3;
const REPLY_LEVELS = new Set(['status', 'error']);
const byName = new Map(extensions.map((e) => [e.name, e]));
const noop = () => undefined;

export const isKp1Topic = (topic: string) => topic.startsWith(`${KP1_ROOT}/`);

/** Whether a filter names an endpoint token literally, in the token's place (not `+`, not under `#`). */
export function namesToken(filter: string): boolean {
  // Asked on every message forwarded to a client: found without splitting the filter or copying the level.
  let start = 0;
  for (let level = 0; level < TOKEN_LEVEL; level++) {
    start = filter.indexOf('/', start) + 1;
    if (start === 0) return false;
  }
  const end = filter.indexOf('/', start);
  if ((end === -1 ? filter.length : end) - start !== 1) return true;
  const only = filter.charCodeAt(start);
  return only !== PLUS && only !== HASH;
}

const PLUS = '+'.charCodeAt(0);
const HASH = '#'.charCodeAt(0);

/**
 * Why a subscription is refused (SUBACK 0x80), or undefined when it is granted. Filters under `kp1/` that name no
 * token (`kp1/#`, `kp1/+/cex/+/#`) could only ever receive other endpoints' traffic, which they never get: refusing
 * them tells the client at once. `$SYS/` would announce every connection's client id and subscriptions, tokens
 * included. `#` and `+/...` are granted: they receive the topics outside `kp1/` (and never `$SYS/`).
 */
export function refusalOf(filter: string): string | undefined {
  const levels = filter.split('/');
  if (levels[0] === '$SYS')
    return "$SYS/ topics announce other connections' client ids and subscriptions, endpoint tokens included";
  if (levels[0] === KP1_ROOT && levels.length > 1 && !namesToken(filter)) {
    return (
      'under kp1/ a subscription must name the endpoint token ' +
      "(kp1/<appVersionName>/<extension>/<endpointToken>/...); other endpoints' traffic is never delivered"
    );
  }
  return undefined;
}

/** aedes keeps a client's subscriptions by topic filter; the typings do not show it. */
const subscriptionsOf = (client: Client): Record<string, unknown> =>
  (client as Client & { subscriptions?: Record<string, unknown> }).subscriptions ?? {};

/** Whether a KP1 message reaches the client through one of its subscriptions: one matches and names the token. */
export function receivesBySubscription(client: Client, topic: string): boolean {
  // A client's own filters (a handful): looked through without making a list of them on every message. Most do not
  // match the topic, which their first levels tell: whether one names the token is asked only of those that do.
  for (const filter in subscriptionsOf(client)) if (topicMatches(filter, topic) && namesToken(filter)) return true;
  return false;
}

/**
 * A topic only the platform publishes on: a reply (`<request>/<requestId>/status|error`) or a push
 * (`<resource>/status`, like `cex/<token>/command/<type>/status`), for every extension of spec 4 (`tsx`, with no
 * resource, included). The last level is `status` or `error`, after the token, and the topic is not itself a
 * request: `cex/<token>/command/status` asks for commands of type "status", `dcx/<token>/plain/error` sends
 * metric "error". Extensions the emulator does not speak have no requests, so any
 * `.../status` or `.../error` of theirs is reserved too.
 */
export function isPlatformTopic(topic: string): boolean {
  // Asked of every publish (twice for a device's); a request's last level (its id, most often) settles it unsplit.
  if (!topic.endsWith('/status') && !topic.endsWith('/error')) return false;
  const levels = topic.split('/');
  if (levels[0] !== KP1_ROOT || levels.length <= TOKEN_LEVEL + 1 || !REPLY_LEVELS.has(levels[levels.length - 1]))
    return false;
  const resource = levels.slice(TOKEN_LEVEL + 1);
  return !byName.get(levels[2])?.resources.some((r) => matchResource(r, resource) !== undefined);
}

/** Messages the gateway hands to one connection itself, outside the subscriptions, that the forward rule lets pass. */
class Handovers {
  private readonly pending = new WeakMap<Client, Map<string, number>>();

  add(client: Client, topic: string): void {
    let topics = this.pending.get(client);
    if (!topics) this.pending.set(client, (topics = new Map()));
    topics.set(topic, (topics.get(topic) ?? 0) + 1);
  }

  take(client: Client, topic: string): boolean {
    const topics = this.pending.get(client);
    const count = topics?.get(topic);
    if (!topics || !count) return false;
    if (count === 1) topics.delete(topic);
    else topics.set(topic, count - 1);
    return true;
  }
}

export interface BrokerRules {
  /**
   * Publishes the gateway's own message to the subscribers; `receiver`, known to receive it through a subscription,
   * is not asked again while the broker forwards it (a reply's sender: asked once by the delivery, not twice).
   */
  publish(packet: PublishPacket, receiver: Client | undefined): void;
  /** Sends a KP1 message to one connection directly (a reply to its request, a push to the endpoint it speaks for). */
  handOver(client: Client, packet: PublishPacket): void;
}

/** Installs the `kp1/` rules on the broker's authorization hooks. */
export function applyBrokerRules(broker: Aedes, log: (message: string) => void): BrokerRules {
  const handovers = new Handovers();
  /** While `publish` runs: the client known to receive its topic by subscription (aedes forwards QoS 0 at once). */
  let knownReceiver: Client | undefined;
  const standardAuthorizePublish = broker.authorizePublish;

  broker.authorizeSubscribe = (client, subscription, done) => {
    const refusal = refusalOf(subscription.topic);
    if (!refusal) return done(null, subscription);
    log(`MQTT client ${client.id} subscribed to "${subscription.topic}": refused (0x80): ${refusal}.`);
    done(null, null);
  };

  // Client publishes and last wills; never the gateway's own.
  broker.authorizePublish = (client, packet, done) => {
    if (isKp1Topic(packet.topic)) {
      const who = client ? `MQTT client ${client.id}` : 'The last will of a former MQTT client';
      if (packet.retain) {
        packet.retain = false;
        log(
          `${who} published a retained message on ${packet.topic}: nothing under kp1/ is retained, so it was ` +
            `delivered unretained.`,
        );
      }
      // MQTT 3.1.1 can only acknowledge or disconnect: the publish is acknowledged, and the forward rule drops it.
      if (isPlatformTopic(packet.topic)) {
        log(`${who} published on ${packet.topic}, a reply or push topic only the emulator publishes on: dropped.`);
      }
    }
    standardAuthorizePublish.call(broker, client, packet, done);
  };

  broker.authorizeForward = (client, packet) => {
    if (!isKp1Topic(packet.topic)) return packet;
    // aedes stamps every client publish with its client id (its no-local rule reads it); the gateway's own have none.
    const sentByClient = (packet as { clientId?: string }).clientId !== undefined;
    if (sentByClient && isPlatformTopic(packet.topic)) return null;
    if (client === knownReceiver || handovers.take(client, packet.topic)) return packet;
    return receivesBySubscription(client, packet.topic) ? packet : null;
  };

  return {
    publish(packet, receiver) {
      knownReceiver = receiver;
      try {
        broker.publish(packet, noop);
      } finally {
        knownReceiver = undefined;
      }
    },
    handOver(client, packet) {
      handovers.add(client, packet.topic);
      client.publish(packet, () => undefined);
    },
  };
}
