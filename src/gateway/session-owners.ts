import type { Aedes, AuthenticateError, Client } from 'aedes';
import type { EmuContext } from '../context.js';
import { credentialOfLogin } from '../services/ccm/basic-credentials.js';
import { isKp1Topic } from './broker-rules.js';
import { tlsPeerOf } from './tls-listener.js';

/**
 * Who an MQTT session belongs to. A client id names a session (its subscriptions and, with `clean: false`, the
 * messages queued while it is away); MQTT lets any CONNECT with that id take it over. Here a session belongs to the
 * identity that made it: a connection with another identity is refused (CONNACK 2, identifier rejected) and the
 * owner keeps its connection and its queue. An anonymous client proves no identity, so it owns nothing that
 * matters: whoever comes next with its client id may take the connection over (as MQTT says, so that a device can
 * come back while its old connection is still half open), and nothing of it under `kp1/` (subscriptions, queued
 * pushes) survives its disconnect.
 */

/** CONNACK return code (MQTT 3.1.1): the client identifier is not allowed (here: it names another's session). */
export const IDENTIFIER_REJECTED = 2;
const ANONYMOUS = 'anonymous';

/**
 * The identity a connection proves: the basic credentials its CONNECT username names (checked by the authenticate
 * hook before this is asked), as their tenant and username, so that `acme/dev` and a bare `dev` of the one tenant
 * holding `dev` are one identity; else the client certificate it presented over TLS (the handshake proved it holds
 * the key), else anonymous.
 */
export function connectionIdentity(ctx: EmuContext, client: Client, login: string | undefined): string {
  if (login) {
    const credential = credentialOfLogin(ctx, login);
    // Gone since the check a moment ago: the login string is all there is to go by.
    return credential ? `basic:${credential.tenantId}/${credential.username}` : `basic:${login}`;
  }
  const certificate = tlsPeerOf(client.conn)?.certificate;
  return certificate ? `x509:${certificate.fingerprint256}` : ANONYMOUS;
}

interface Owner {
  identity: string;
  /** The connection holding the session now; undefined while a persistent session waits for its owner. */
  live?: Client;
  persistent: boolean;
}

type Authenticate = Aedes['authenticate'];

/** The part of aedes' session store used here (its typings do not show `broker.persistence`). */
interface StoredSessions {
  subscriptionsByClient(client: { id: string }): Promise<Array<{ topic: string }>>;
  removeSubscriptions(client: { id: string }, topics: string[]): Promise<void>;
}

class SessionOwners {
  private readonly owners = new Map<string, Owner>();

  constructor(
    private readonly broker: Aedes,
    private readonly log: (message: string) => void,
  ) {}

  /** The owner of a client id's session that another identity may not take, if any. */
  private holder(clientId: string): Owner | undefined {
    const owner = this.owners.get(clientId);
    if (!owner || owner.identity === ANONYMOUS) return undefined;
    // A connection that closed before it finished connecting leaves no session unless it asked for one.
    if (!owner.persistent && (!owner.live || owner.live.closed)) return undefined;
    return owner;
  }

  /** After the credentials were checked: the session is this identity's, or the connection is refused. */
  async admit(client: Client, identity: string): Promise<boolean> {
    const holder = this.holder(client.id);
    if (holder && holder.identity !== identity) {
      this.log(
        `MQTT client ${client.id} refused (identifier rejected): that client id names a session of another ` +
          `identity (${holder.identity}); ` +
          `a session belongs to the credentials that made it.`,
      );
      return false;
    }
    const previous = this.owners.get(client.id);
    this.owners.set(client.id, { identity, live: client, persistent: !client.clean });
    // An anonymous session hands nothing under kp1/ to whoever comes next with its client id.
    if (previous?.identity === ANONYMOUS || identity === ANONYMOUS) await this.forgetKp1(client.id);
    return true;
  }

  disconnected(client: Client): void {
    const owner = this.owners.get(client.id);
    if (owner?.live !== client) return;
    if (owner.identity === ANONYMOUS || !owner.persistent) this.owners.delete(client.id);
    else owner.live = undefined;
    if (owner.identity === ANONYMOUS && owner.persistent) void this.forgetKp1(client.id);
  }

  /** Drops a stored session's subscriptions under kp1/; messages queued for them are then refused on delivery. */
  private async forgetKp1(clientId: string): Promise<void> {
    const persistence = (this.broker as unknown as { persistence: StoredSessions }).persistence;
    try {
      const topics = (await persistence.subscriptionsByClient({ id: clientId })).map((s) => s.topic).filter(isKp1Topic);
      if (topics.length > 0) await persistence.removeSubscriptions({ id: clientId }, topics);
    } catch (err) {
      this.log(`MQTT session ${clientId}: its kp1/ subscriptions could not be dropped: ${(err as Error).message}`);
    }
  }
}

/**
 * Installs session ownership on the broker: its authenticate hook (whatever checks credentials) runs first, then
 * the session check; a disconnect releases what the connection held.
 */
export function guardSessions(ctx: EmuContext, broker: Aedes): void {
  const owners = new SessionOwners(broker, ctx.log);
  const checkCredentials: Authenticate = broker.authenticate;
  broker.authenticate = (client, username, password, done) => {
    checkCredentials.call(broker, client, username, password, (error, success) => {
      if (error || !success) return done(error, success);
      owners.admit(client, connectionIdentity(ctx, client, username ?? undefined)).then(
        (admitted) => {
          if (admitted) return done(null, true);
          const refusal = Object.assign(
            new Error('Identifier rejected: the client id names the session of another identity.'),
            {
              returnCode: IDENTIFIER_REJECTED,
            },
          ) as AuthenticateError;
          done(refusal, false);
        },
        (err: Error) => done(err as AuthenticateError, false),
      );
    });
  };
  broker.on('clientDisconnect', (client) => owners.disconnected(client));
}
