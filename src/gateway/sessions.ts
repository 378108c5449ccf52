import type { Client } from 'aedes';
import { runtimeOf, type EmuContext } from '../context.js';
import { CONNECTION_CHANGED } from '../server/events.js';

/** What the emulator knows about an endpoint's link to it (runtime only; not part of the stored state). */
export interface DeviceConnection {
  endpointId: string;
  /** An MQTT connection that used the endpoint's token is connected now. */
  online: boolean;
  /** The transport of the endpoint's last request. */
  transport: 'mqtt' | 'http';
  /** The MQTT client id of the connection that speaks for the endpoint (the last one that used its token). */
  clientId?: string;
  /** The endpoint's last KP1 request, over either transport. */
  lastSeen: string;
  /** When the current MQTT connection started speaking for the endpoint. */
  connectedSince?: string;
}

export type QoS = 0 | 1 | 2;

/** One endpoint's session: its connection state, and the pushes its speaking connection asked for. */
export interface Session {
  /** All but `lastSeen`, which `present` makes of `seenAt` when the state is read. */
  state: Omit<DeviceConnection, 'lastSeen'>;
  /** The endpoint's last KP1 request (epoch milliseconds of the emulator's clock). */
  seenAt: number;
  client?: Client;
  /** Per `<extension>/<resource>`: the request ids that observe it, with the QoS of their request. */
  observers: Map<string, Map<number, QoS>>;
  /** Resources whose pushes the device stopped with `{ "observe": false }`. */
  muted: Set<string>;
  /** Resources pushed to the speaking connection since it started speaking for the endpoint. */
  pushed: Set<string>;
}

/** A copy of an endpoint's connection state, as the API and the events show it. */
function present({ state, seenAt }: Session): DeviceConnection {
  const { endpointId, online, transport, ...since } = state;
  return { endpointId, online, transport, lastSeen: new Date(seenAt).toISOString(), ...since };
}

class Sessions {
  readonly byEndpoint = new Map<string, Session>();
  private readonly byClient = new Map<Client, Set<string>>();

  constructor(private readonly ctx: EmuContext) {}

  /**
   * A request with the endpoint's token arrived; over MQTT its connection now speaks for the endpoint, unless it
   * closed while the request waited its turn (or the request was its last will): it went offline before it spoke.
   * `started`: this request made its connection the one that speaks for the endpoint.
   */
  seen(endpointId: string, transport: 'mqtt' | 'http', client?: Client): { session: Session; started: boolean } {
    // Asked of every request: the time is kept as a number, and made text only when the state is read.
    const seenAt = this.ctx.clock.nowMs();
    let session = this.byEndpoint.get(endpointId);
    if (!session) {
      session = {
        state: { endpointId, online: false, transport },
        seenAt,
        observers: new Map(),
        muted: new Set(),
        pushed: new Set(),
      };
      this.byEndpoint.set(endpointId, session);
    }
    session.seenAt = seenAt;
    session.state.transport = transport;
    const started = client !== undefined && !client.closed && session.client !== client;
    if (started) {
      if (session.client) this.byClient.get(session.client)?.delete(endpointId);
      session.client = client;
      session.observers.clear();
      session.muted.clear();
      session.pushed.clear();
      session.state.online = true;
      session.state.clientId = client.id;
      session.state.connectedSince = new Date(seenAt).toISOString();
      let endpoints = this.byClient.get(client);
      if (!endpoints) this.byClient.set(client, (endpoints = new Set()));
      endpoints.add(endpointId);
      this.ctx.events.emit(CONNECTION_CHANGED, present(session));
    }
    return { session, started };
  }

  /** A connection closed: the endpoints it spoke for go offline, and its observations end with it. */
  disconnected(client: Client): void {
    for (const endpointId of this.byClient.get(client) ?? []) {
      const session = this.byEndpoint.get(endpointId);
      if (session?.client !== client) continue;
      session.client = undefined;
      session.observers.clear();
      session.muted.clear();
      session.pushed.clear();
      session.state.online = false;
      session.state.connectedSince = undefined;
      this.ctx.events.emit(CONNECTION_CHANGED, present(session));
    }
    this.byClient.delete(client);
  }

  onlineCount(): number {
    let count = 0;
    for (const session of this.byEndpoint.values()) if (session.state.online) count++;
    return count;
  }
}

export const sessionsOf = (ctx: EmuContext) => runtimeOf(ctx, 'gateway:sessions', () => new Sessions(ctx));

/** Connection state of an endpoint (online/offline, last seen), or undefined when it has not spoken since the start. */
export function deviceConnection(ctx: EmuContext, endpointId: string): DeviceConnection | undefined {
  const session = sessionsOf(ctx).byEndpoint.get(endpointId);
  return session && present(session);
}

/** How many endpoints have an MQTT connection now. */
export function onlineEndpointCount(ctx: EmuContext): number {
  return sessionsOf(ctx).onlineCount();
}

/** Every endpoint that spoke since the start: online or not, with its last request. */
export function deviceConnections(ctx: EmuContext): DeviceConnection[] {
  return [...sessionsOf(ctx).byEndpoint.values()].map(present);
}
