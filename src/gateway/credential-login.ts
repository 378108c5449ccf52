import type { Aedes, AuthenticateError, Client } from 'aedes';
import type { EmuContext } from '../context.js';
import { CREDENTIAL_CHANGED, STATE_REPLACED, type CredentialChange } from '../server/events.js';
import { credentialOfLogin } from '../services/ccm/basic-credentials.js';
import { clientAuthOf, clientAuthRequiredEverywhere } from '../services/ccm/tls-settings.js';
import {
  findX509ByFingerprint,
  recordX509Use,
  x509Refusal,
  X509_CREDENTIALS,
} from '../services/ccm/x509-credentials.js';
import { BASIC_CREDENTIALS } from '../services/ccm/basic-credentials.js';
import { findEndpointByToken } from '../services/epr/endpoints.js';
import { isKp1Topic } from './broker-rules.js';
import { tlsPeerOf } from './tls-listener.js';

const NOT_AUTHORIZED = 5;

/** How a client logged in: the credentials it used (each disconnects it when suspended or revoked), and over what. */
export interface ClientLogin {
  tls: boolean;
  /** The X.509 credentials its certificate is, when the credentials manager holds it. */
  x509?: { id: string; tenantId: string; commonName: string };
  /** The basic credentials of its CONNECT username, once checked. */
  basic?: { id: string; tenantId: string; username: string };
}

const logins = new WeakMap<Client, ClientLogin>();

/** How a connected client logged in; undefined before its CONNECT was accepted. */
export const loginOf = (client: Client): ClientLogin | undefined => logins.get(client);

/** What the dashboard shows of a connection's login: TLS or not, and the credential (its CN or username). */
export interface PresentedLogin {
  tls: boolean;
  credential?: { kind: 'x509' | 'basic'; id: string; name: string };
}

export function presentLogin(login: ClientLogin): PresentedLogin {
  const credential = login.x509
    ? { kind: 'x509' as const, id: login.x509.id, name: login.x509.commonName }
    : login.basic
      ? { kind: 'basic' as const, id: login.basic.id, name: login.basic.username }
      : undefined;
  return { tls: login.tls, ...(credential ? { credential } : {}) };
}

function refusal(message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: NOT_AUTHORIZED }) as AuthenticateError;
}

/** The connected clients of each credential (`basic:<id>`, `x509:<id>`): who goes when it is suspended or revoked. */
class CredentialClients {
  private readonly byCredential = new Map<string, Set<Client>>();

  add(key: string, client: Client): void {
    let clients = this.byCredential.get(key);
    if (!clients) this.byCredential.set(key, (clients = new Set()));
    clients.add(client);
    client.conn.once('close', () => {
      clients.delete(client);
      if (clients.size === 0 && this.byCredential.get(key) === clients) this.byCredential.delete(key);
    });
  }

  /** Closes every client of the credential now; how many there were. */
  disconnect(key: string): number {
    const clients = [...(this.byCredential.get(key) ?? [])];
    for (const client of clients) client.close();
    return clients.length;
  }

  keys(): string[] {
    return [...this.byCredential.keys()];
  }
}

type Authenticate = Aedes['authenticate'];

/**
 * The broker's CONNECT check, credentials first: a certificate the credentials manager holds is the client's
 * credential on MQTT over TLS (checked for its state and validity on the emulator's clock; its first use makes it
 * Active); a tenant that requires client certificates (`--tls-client-auth`, or its own setting) refuses MQTTS
 * clients without one. Basic credentials are then checked as before (`mqtt-auth.ts`). Every client is remembered
 * with its credentials, and a suspension or revocation of them closes it at once.
 */
export function useCredentials(ctx: EmuContext, broker: Aedes): void {
  const clients = new CredentialClients();
  const basicCheck: Authenticate = broker.authenticate.bind(broker);

  const basicThen = (
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
    login: ClientLogin,
    done: Parameters<Authenticate>[3],
  ) =>
    basicCheck(client, username, password, (error, success) => {
      if (error || !success) return done(error, success);
      const basic = username ? credentialOfLogin(ctx, username) : undefined;
      if (basic) {
        login.basic = { id: basic.id, tenantId: basic.tenantId, username: basic.username };
        clients.add(`basic:${basic.id}`, client);
      }
      if (login.x509) clients.add(`x509:${login.x509.id}`, client);
      logins.set(client, login);
      done(null, true);
    });

  broker.authenticate = (client, username, password, done) => {
    const peer = tlsPeerOf(client.conn);
    if (!peer) return basicThen(client, username, password, { tls: false }, done);
    const certificate = peer.certificate;
    const credential = certificate && findX509ByFingerprint(ctx, certificate.fingerprint256);
    if (certificate && credential) {
      const refused = x509Refusal(ctx, credential, certificate.validFrom);
      if (refused) {
        ctx.log(
          `MQTTS client ${client.id} refused: its certificate (CN ${credential.commonName}) cannot log in: ${refused}.`,
        );
        return done(refusal(`Not authorized: ${refused}.`), false);
      }
      const login: ClientLogin = {
        tls: true,
        x509: { id: credential.id, tenantId: credential.tenantId, commonName: credential.commonName },
      };
      recordX509Use(ctx, credential.id).then(
        () => basicThen(client, username, password, login, done),
        (err: Error) => done(refusal(`The certificate could not be checked: ${err.message}`), false),
      );
      return;
    }
    const tenantId = username ? credentialOfLogin(ctx, username)?.tenantId : undefined;
    const required = tenantId ? clientAuthOf(ctx, tenantId) === 'required' : clientAuthRequiredEverywhere(ctx);
    if (required) {
      const presented = certificate
        ? `a certificate the credentials manager does not hold (SHA-256 ${certificate.fingerprint256})`
        : 'no certificate';
      ctx.log(
        `MQTTS client ${client.id} refused: it presented ${presented}, and mutual TLS is ` +
          `required${tenantId ? ` by tenant ${tenantId}` : ''}.`,
      );
      return done(
        refusal('Not authorized: this broker requires a client certificate of the credentials manager (mutual TLS).'),
        false,
      );
    }
    basicThen(client, username, password, { tls: true }, done);
  };

  guardTenantEndpoints(ctx, broker);

  const disconnect = (key: string, why: string) => {
    const count = clients.disconnect(key);
    if (count > 0) ctx.log(`${count} MQTT client${count === 1 ? '' : 's'} disconnected: ${why}.`);
  };
  const onChange = (change: CredentialChange) => {
    if (change.state !== 'Suspended' && change.state !== 'Revoked') return;
    disconnect(
      `${change.kind}:${change.id}`,
      `their ${change.kind === 'x509' ? 'X.509' : 'basic'} credentials ${change.id} are ${change.state}`,
    );
  };
  // A replaced state may have dropped or suspended credentials that clients are logged in with.
  const onReplaced = () => {
    for (const key of clients.keys()) {
      const [kind, id] = key.split(':') as ['basic' | 'x509', string];
      const state = (kind === 'x509' ? X509_CREDENTIALS.get(ctx, id) : BASIC_CREDENTIALS.get(ctx, id))?.state;
      if (state === undefined || state === 'Suspended' || state === 'Revoked')
        disconnect(key, `their credentials ${id} are ${state ?? 'gone'} after the state was replaced`);
    }
  };
  ctx.events.on(CREDENTIAL_CHANGED, onChange);
  ctx.events.on(STATE_REPLACED, onReplaced);
  broker.once('closed', () => {
    ctx.events.off(CREDENTIAL_CHANGED, onChange);
    ctx.events.off(STATE_REPLACED, onReplaced);
  });
}

/**
 * On MQTT over TLS, a KP1 request speaks for an endpoint of one tenant: a client logged in with a certificate only
 * for endpoints of the certificate's tenant, and a client without one only for endpoints of tenants that do not
 * require certificates. Anything else closes the connection (the CONNACK could not know the endpoint).
 */
function guardTenantEndpoints(ctx: EmuContext, broker: Aedes): void {
  const authorize = broker.authorizePublish.bind(broker);
  broker.authorizePublish = (client, packet, done) => {
    const login = client ? logins.get(client) : undefined;
    if (!client || !login?.tls || !isKp1Topic(packet.topic)) return authorize(client, packet, done);
    const [, appVersionName, , token] = packet.topic.split('/');
    const endpoint = token ? findEndpointByToken(ctx, appVersionName, token) : undefined;
    if (endpoint) {
      const problem = login.x509
        ? login.x509.tenantId !== endpoint.tenantId &&
          `its certificate belongs to tenant ${login.x509.tenantId}, the endpoint to another`
        : clientAuthOf(ctx, endpoint.tenantId) === 'required' &&
          `tenant ${endpoint.tenantId} requires a client certificate (mutual TLS)`;
      if (problem) {
        ctx.log(`MQTTS client ${client.id} published on ${packet.topic}: refused, connection closed: ${problem}.`);
        return done(new Error(`Not authorized: ${problem}.`));
      }
    }
    authorize(client, packet, done);
  };
}
