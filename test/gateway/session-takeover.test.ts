import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint } from './device.js';

const IDENTIFIER_REJECTED = 2;

interface Connection {
  client: MqttClient;
  topics: string[];
  /** Resolves with the first message on a topic that passes `match` (already received or still to come). */
  next(match: (topic: string) => boolean): Promise<string>;
}

const open: MqttClient[] = [];
afterAll(async () => {
  await Promise.all(open.map((c) => c.endAsync(true)));
});

/** A real mqtt.js connection recording the topics it receives, or the CONNACK code that refused it. */
async function connect(url: string, options: IClientOptions): Promise<Connection | number> {
  let client: MqttClient;
  const topics: string[] = [];
  const waiters: Array<{ match: (t: string) => boolean; resolve: (t: string) => void }> = [];
  try {
    client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options }, false);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'number') throw err;
    return code;
  }
  open.push(client);
  client.on('message', (topic) => {
    topics.push(topic);
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].match(topic)) waiters.splice(i, 1)[0].resolve(topic);
    }
  });
  return {
    client,
    topics,
    next: (match) => {
      const seen = topics.find(match);
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

function connected(result: Connection | number): Connection {
  if (typeof result === 'number') throw new Error(`refused with CONNACK ${result}`);
  return result;
}

/**
 * A round trip through the broker on a topic of the connection's own: everything the broker had for the
 * connection when it connected (its queue) is delivered before this.
 */
async function drained(connection: Connection, id: string): Promise<void> {
  const probe = `probe/${id}`;
  await connection.client.subscribeAsync(probe, { qos: 1 });
  const echoed = connection.next((t) => t === probe);
  await connection.client.publishAsync(probe, 'x', { qos: 1 });
  await echoed;
}

describe('MQTT persistent sessions belong to the identity that made them', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const credential = async (username: string) => {
    const created = await call('POST', '/ccm/api/v1/basic-credentials', {
      body: { username, password: `${username}-password` },
    });
    expect(created.status, created.text).toBe(201);
    return { username, password: `${username}-password` };
  };
  const invoke = (endpointId: string, type: string) =>
    call('POST', `/cex/api/v1/endpoints/${endpointId}/commands/${type}?waitTimeout=0`, { body: { secret: 'payload' } });

  /** An owner that subscribes to its commands with QoS 1, then goes away leaving a push queued in its session. */
  async function ownerWithQueuedPush(clientId: string, login: { username?: string; password?: string }) {
    const endpoint = await registerEndpoint(emulator);
    const owner = connected(await connect(emulator.mqttUrl, { clientId, clean: false, ...login }));
    const commands = `${endpoint.topic('cex')}/command/reboot/status`;
    await owner.client.subscribeAsync(`${endpoint.topic('cex')}/command/#`, { qos: 1 });
    await owner.client.endAsync();
    expect((await invoke(endpoint.endpointId, 'reboot')).status).toBe(202);
    return { endpoint, commands };
  }

  it(
    'refuses another identity (no credentials, or other credentials) with CONNACK 2; the owner gets its queued ' +
      'push',
    async () => {
      const owner = await credential('owner-one');
      const other = await credential('other-one');
      const { commands } = await ownerWithQueuedPush('meter-session-1', owner);

      expect(await connect(emulator.mqttUrl, { clientId: 'meter-session-1', clean: false })).toBe(IDENTIFIER_REJECTED);
      expect(await connect(emulator.mqttUrl, { clientId: 'meter-session-1', clean: false, ...other })).toBe(
        IDENTIFIER_REJECTED,
      );
      expect(await connect(emulator.mqttUrl, { clientId: 'meter-session-1', clean: true })).toBe(IDENTIFIER_REJECTED);

      const back = connected(await connect(emulator.mqttUrl, { clientId: 'meter-session-1', clean: false, ...owner }));
      expect(await back.next((t) => t === commands)).toBe(commands);
    },
  );

  it('one credential is one identity: <tenant>/<username> and the bare username share its sessions', async () => {
    const owner = await credential('owner-seven');
    const qualified = { username: `acme/${owner.username}`, password: owner.password };
    const made = await ownerWithQueuedPush('meter-session-7', qualified);
    const bare = connected(await connect(emulator.mqttUrl, { clientId: 'meter-session-7', clean: false, ...owner }));
    expect(await bare.next((t) => t === made.commands)).toBe(made.commands);

    const again = await ownerWithQueuedPush('meter-session-8', owner);
    const named = connected(
      await connect(emulator.mqttUrl, { clientId: 'meter-session-8', clean: false, ...qualified }),
    );
    expect(await named.next((t) => t === again.commands)).toBe(again.commands);
  });

  it('does not kick a connected owner off: the takeover is refused and the owner keeps receiving', async () => {
    const owner = await credential('owner-two');
    const endpoint = await registerEndpoint(emulator);
    const live = connected(await connect(emulator.mqttUrl, { clientId: 'meter-session-2', clean: false, ...owner }));
    let closed = false;
    live.client.on('close', () => (closed = true));
    await live.client.subscribeAsync(`${endpoint.topic('cex')}/command/#`, { qos: 1 });

    expect(await connect(emulator.mqttUrl, { clientId: 'meter-session-2', clean: false })).toBe(IDENTIFIER_REJECTED);
    expect(
      await connect(emulator.mqttUrl, { clientId: 'meter-session-2', ...(await credential('intruder-two')) }),
    ).toBe(IDENTIFIER_REJECTED);

    await invoke(endpoint.endpointId, 'reboot');
    await live.next((t) => t === `${endpoint.topic('cex')}/command/reboot/status`);
    expect(closed).toBe(false);
    expect(live.client.connected).toBe(true);
  });

  it(
    'lets the owner itself reconnect while its old connection is still open (MQTT takeover by the same ' + 'identity)',
    async () => {
      const owner = await credential('owner-three');
      const first = connected(await connect(emulator.mqttUrl, { clientId: 'meter-session-3', clean: false, ...owner }));
      const kicked = new Promise<void>((resolve) => first.client.once('close', () => resolve()));
      const second = connected(
        await connect(emulator.mqttUrl, { clientId: 'meter-session-3', clean: false, ...owner }),
      );
      await kicked;
      expect(second.client.connected).toBe(true);
    },
  );

  it(
    'an anonymous session keeps nothing under kp1/ across a disconnect: a client reusing its id gets no queued ' +
      'push',
    async () => {
      const { endpoint, commands } = await ownerWithQueuedPush('meter-session-4', {});
      const next = connected(await connect(emulator.mqttUrl, { clientId: 'meter-session-4', clean: false }));
      await drained(next, 'session-4');
      expect(next.topics.filter((t) => t.startsWith('kp1/'))).toEqual([]);
      // Nor does a later push reach it through the session's old subscription.
      await invoke(endpoint.endpointId, 'reboot');
      await drained(next, 'session-4-again');
      expect(next.topics).not.toContain(commands);
    },
  );

  it('a client taking over a connected anonymous session inherits none of its kp1/ subscriptions', async () => {
    const endpoint = await registerEndpoint(emulator);
    const commands = `${endpoint.topic('cex')}/command/reboot/status`;
    const first = connected(await connect(emulator.mqttUrl, { clientId: 'meter-session-5', clean: false }));
    await first.client.subscribeAsync(`${endpoint.topic('cex')}/command/#`, { qos: 1 });
    const kicked = new Promise<void>((resolve) => first.client.once('close', () => resolve()));
    const second = connected(await connect(emulator.mqttUrl, { clientId: 'meter-session-5', clean: false }));
    await kicked;
    // A watcher that names the token receives the push: by then the taker would have had it too.
    const watcher = connected(await connect(emulator.mqttUrl, {}));
    await watcher.client.subscribeAsync(`${endpoint.topic('cex')}/command/#`, { qos: 1 });
    await invoke(endpoint.endpointId, 'reboot');
    await watcher.next((t) => t === commands);
    await drained(second, 'session-5');
    expect(second.topics).not.toContain(commands);
  });

  it('keeps what is not under kp1/ in an anonymous persistent session, as a plain broker does', async () => {
    const first = connected(await connect(emulator.mqttUrl, { clientId: 'plain-session-6', clean: false }));
    await first.client.subscribeAsync('plain/session-6', { qos: 1 });
    await first.client.endAsync();
    const publisher = connected(await connect(emulator.mqttUrl, {}));
    await publisher.client.publishAsync('plain/session-6', 'kept', { qos: 1 });
    const back = connected(await connect(emulator.mqttUrl, { clientId: 'plain-session-6', clean: false }));
    expect(await back.next((t) => t === 'plain/session-6')).toBe('plain/session-6');
  });
});
