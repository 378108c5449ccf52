import type { MqttClient } from 'mqtt';
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { CCM, closed, connectTls, generateCertificate, kp1Request, setCertificateState } from './helpers.js';

const NOT_AUTHORIZED = 5;
const TIME_TOPIC = 'kp1/smart-meter-v1/tsx/meter-001-token';

describe('MQTT over TLS, one-way (--tls-client-auth off, the default)', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it(
    'serves MQTTS on a free port beside plain MQTT, with a server certificate the root certificate ' + 'signs',
    async () => {
      expect(emulator.mqttsUrl).toMatch(/^mqtts:\/\/127\.0\.0\.1:\d+$/);
      expect(emulator.mqttsPort).not.toBe(emulator.mqttPort);
      const root = await call('GET', '/_emu/tls/ca.pem');
      expect(root.status).toBe(200);
      expect(root.headers.get('content-type')).toMatch(/application\/x-pem-file/);
      expect(root.text).toBe(emulator.caCertificate);
      expect(new X509Certificate(root.text).ca).toBe(true);
      expect((await call('GET', `${CCM}/root-certificate`)).text).toBe(emulator.caCertificate);
      const health = (await call('GET', '/_emu/health')).body;
      expect(health.mqtts).toMatchObject({ url: emulator.mqttsUrl, port: emulator.mqttsPort, clientAuth: 'off' });
    },
  );

  it('a client trusting the root certificate connects without a certificate and speaks KP1', async () => {
    const client = (await connectTls(emulator)) as MqttClient;
    expect(client.connected).toBe(true);
    const reply = await kp1Request(client, TIME_TOPIC, {});
    expect(reply.outcome).toBe('status');
    await client.endAsync();
  });

  it('a client trusting another authority refuses the server', async () => {
    const other = await startEmulator({ port: 0, mqttPort: 0, dataDir: await tempDir(), log: () => undefined });
    try {
      expect(other.caCertificate).not.toBe(emulator.caCertificate);
      const refused = await connectTls(emulator, { ca: other.caCertificate });
      expect(refused).toEqual({ refused: expect.stringMatching(/self.signed|unable to verify|certificate/i) });
    } finally {
      await other.stop();
    }
  });

  it(
    'a certificate the credentials manager holds is used: its first use makes it Active and sets ' + 'lastUseDate',
    async () => {
      const generated = await generateCertificate(emulator, { commonName: 'meter-001' });
      expect(generated.state).toBe('Inactive');
      const client = (await connectTls(emulator, {
        cert: generated.certificateChain,
        key: generated.privateKey,
      })) as MqttClient;
      expect(client.connected).toBe(true);
      const used = (await call('GET', `${CCM}/x509-credentials/${generated.id}`)).body;
      expect(used).toMatchObject({ state: 'Active', lastUseDate: expect.any(String) });
      await client.endAsync();
    },
  );

  it('a garbage handshake is dropped, and the listener keeps serving', async () => {
    const { connect } = await import('node:net');
    const socket = connect(emulator.mqttsPort, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(Buffer.from('\x10\x0c\x00\x04MQTT\x04\x02\x00\x3c\x00\x00 this is not TLS'));
    await new Promise((resolve) => socket.once('close', resolve));
    const client = (await connectTls(emulator)) as MqttClient;
    expect(client.connected).toBe(true);
    await client.endAsync();
  });
});

describe('mutual TLS (--tls-client-auth required)', async () => {
  const emulator = await startTestEmulator({ tlsClientAuth: 'required' });
  const call = api(emulator);

  it('refuses a client without a certificate at CONNACK; plain MQTT is not affected', async () => {
    expect(await connectTls(emulator)).toEqual({ refused: NOT_AUTHORIZED });
    const mqtt = await import('mqtt');
    const plain = await mqtt.default.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    await plain.endAsync();
  });

  it('refuses a certificate the credentials manager does not hold, even one the local authority signed', async () => {
    const generated = await generateCertificate(emulator);
    expect((await setCertificateState(emulator, generated.id, 'Revoked')).status).toBe(204);
    expect(await connectTls(emulator, { cert: generated.certificateChain, key: generated.privateKey })).toEqual({
      refused: NOT_AUTHORIZED,
    });
  });

  it(
    'admits a client with its certificate only while it is Inactive or Active, and disconnects it at once when ' +
      'suspended',
    async () => {
      const generated = await generateCertificate(emulator, { commonName: 'meter-002' });
      const tls = { cert: generated.certificateChain, key: generated.privateKey };
      const client = (await connectTls(emulator, tls)) as MqttClient;
      expect(client.connected).toBe(true);
      expect((await kp1Request(client, TIME_TOPIC, {})).outcome).toBe('status');
      const gone = closed(client);
      expect((await setCertificateState(emulator, generated.id, 'Suspended')).status).toBe(204);
      await gone;
      expect(await connectTls(emulator, tls)).toEqual({ refused: NOT_AUTHORIZED });
      expect((await setCertificateState(emulator, generated.id, 'Active')).status).toBe(204);
      const again = (await connectTls(emulator, tls)) as MqttClient;
      expect(again.connected).toBe(true);
      const goneAgain = closed(again);
      expect((await setCertificateState(emulator, generated.id, 'Revoked')).status).toBe(204);
      await goneAgain;
      expect(await connectTls(emulator, tls)).toEqual({ refused: NOT_AUTHORIZED });
      expect((await setCertificateState(emulator, generated.id, 'Active')).status).toBe(400);
    },
  );

  it('refuses an expired certificate on the virtual clock', async () => {
    const generated = await generateCertificate(emulator, { ttl: 'PT1H' });
    const tls = { cert: generated.certificateChain, key: generated.privateKey };
    const client = (await connectTls(emulator, tls)) as MqttClient;
    expect(client.connected).toBe(true);
    await client.endAsync();
    expect((await call('PUT', '/_emu/clock', { body: { advance: 'PT2H' } })).status).toBe(200);
    try {
      expect(await connectTls(emulator, tls)).toEqual({ refused: NOT_AUTHORIZED });
    } finally {
      await call('PUT', '/_emu/clock', { body: { real: true } });
    }
  });
});

describe('tenants and mutual TLS (--auth on)', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);
  const acme = emulator.token({ tenant: 'acme' });
  const globex = emulator.token({ tenant: 'globex' });

  it("a certificate speaks only for its own tenant's endpoints: another tenant's closes the connection", async () => {
    const own = await generateCertificate(emulator, {}, acme);
    const client = (await connectTls(emulator, { cert: own.certificateChain, key: own.privateKey })) as MqttClient;
    expect((await kp1Request(client, TIME_TOPIC, {})).outcome).toBe('status');
    await client.endAsync();

    const foreign = await generateCertificate(emulator, {}, globex);
    const intruder = (await connectTls(emulator, {
      cert: foreign.certificateChain,
      key: foreign.privateKey,
    })) as MqttClient;
    expect(intruder.connected).toBe(true);
    const gone = closed(intruder);
    intruder.publish(`${TIME_TOPIC}/1`, '{}', { qos: 1 });
    await gone;
    // Another tenant's credential is as absent as one that does not exist.
    expect(
      (
        await call('PATCH', `${CCM}/x509-credentials/${foreign.id}/state`, {
          body: { state: 'Suspended' },
          token: acme,
        })
      ).status,
    ).toBe(404);
  });

  it(
    'a tenant that requires certificates refuses its endpoints to clients without one, while the others stay ' +
      'one-way',
    async () => {
      expect(
        (await call('PUT', `${CCM}/tls-settings`, { body: { clientAuth: 'required' }, token: acme })).body,
      ).toEqual({
        clientAuth: 'required',
        inherited: false,
        emulatorDefault: 'off',
      });
      expect((await call('GET', `${CCM}/tls-settings`, { token: globex })).body).toEqual({
        clientAuth: 'off',
        inherited: true,
        emulatorDefault: 'off',
      });
      const anonymous = (await connectTls(emulator)) as MqttClient;
      expect(anonymous.connected).toBe(true);
      const gone = closed(anonymous);
      anonymous.publish(`${TIME_TOPIC}/1`, '{}', { qos: 1 });
      await gone;
      expect(
        (await call('PUT', `${CCM}/tls-settings`, { body: { clientAuth: null }, token: acme })).body,
      ).toMatchObject({
        clientAuth: 'off',
        inherited: true,
      });
      const admitted = (await connectTls(emulator)) as MqttClient;
      expect((await kp1Request(admitted, TIME_TOPIC, {})).outcome).toBe('status');
      await admitted.endAsync();
    },
  );
});

async function tempDir(): Promise<string> {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  return mkdtemp(join(tmpdir(), 'tls-ca-'));
}

describe('HTTPS and a server certificate of your own', () => {
  it('httpsPort serves the REST routes over TLS with the local authority certificate', async () => {
    const emulator = await startTestEmulator({ httpsPort: 0 });
    expect(emulator.httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const { get } = await import('node:https');
    const body = await new Promise<string>((resolve, reject) => {
      get(`${emulator.httpsUrl}/epr/api/v1/endpoints/meter-001`, { ca: emulator.caCertificate }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      }).on('error', reject);
    });
    expect(JSON.parse(body)).toMatchObject({ endpointId: 'meter-001' });
  });

  it('an HTTPS port in use fails the start, after the authority it made for it is saved whole', async () => {
    const { existsSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const taken = await startTestEmulator();
    const dataDir = join(await tempDir(), 'state');
    await expect(
      startEmulator({ port: 0, mqttPort: 0, httpsPort: taken.port, dataDir, log: () => undefined }),
    ).rejects.toThrow(`The HTTPS port ${taken.port} is in use`);
    expect(existsSync(join(dataDir, 'tls-ca.json'))).toBe(true);
    expect(readdirSync(dataDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('tlsCert and tlsKey serve the given certificate; a key that does not match fails the start', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const dir = await tempDir();
    const one = await generateCertificate(await startTestEmulator());
    const other = await generateCertificate(await startTestEmulator());
    await writeFile(join(dir, 'server.crt'), one.certificateChain);
    await writeFile(join(dir, 'server.key'), one.privateKey);
    await writeFile(join(dir, 'other.key'), other.privateKey);
    const own = await startTestEmulator({ tlsCert: join(dir, 'server.crt'), tlsKey: join(dir, 'server.key') });
    const { connect } = await import('node:tls');
    const presented = await new Promise<string>((resolve, reject) => {
      const socket = connect({ port: own.mqttsPort, host: '127.0.0.1', rejectUnauthorized: false }, () => {
        resolve(socket.getPeerX509Certificate()!.fingerprint256);
        socket.destroy();
      }).on('error', reject);
    });
    expect(presented).toBe(new X509Certificate(one.certificateChain).fingerprint256);
    await expect(
      startEmulator({
        port: 0,
        mqttPort: 0,
        inMemory: true,
        log: () => undefined,
        tlsCert: join(dir, 'server.crt'),
        tlsKey: join(dir, 'other.key'),
      }),
    ).rejects.toThrow(/does not go with --tls-cert/);
    await expect(
      startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined, tlsCert: join(dir, 'server.crt') }),
    ).rejects.toThrow(/go together/);
  });
});
