import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { MqttClient } from 'mqtt';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { fixtureFile } from '../helpers/fixture-file.js';
import { CCM, closed, connectTls, generateCertificate, setCertificateState } from './helpers.js';

describe('POST /x509-credentials/generate', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it(
    'answers 201 with the Inactive record, the chain up to the root and the private key, which is never ' + 'stored',
    async () => {
      const response = await call('POST', `${CCM}/x509-credentials/generate`, {
        body: { commonName: 'meter-001', ttl: 'P30D' },
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('location')).toBe(`${emulator.url}${CCM}/x509-credentials/${response.body.id}`);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const { certificateChain, privateKey, ...record } = response.body;
      expect(record).toEqual({
        id: expect.any(String),
        state: 'Inactive',
        serialNumber: expect.stringMatching(/^\d+$/),
        commonName: 'meter-001',
        invalidAfter: expect.any(String),
        createdDate: expect.any(String),
        updatedDate: expect.any(String),
      });
      const days = (Date.parse(record.invalidAfter) - Date.parse(record.createdDate)) / 86_400_000;
      expect(Math.round(days)).toBe(30);
      const [leaf, root] = certificateChain.split(/(?<=-----END CERTIFICATE-----\n)/);
      const certificate = new X509Certificate(leaf);
      expect(certificate.subject).toContain('CN=meter-001');
      expect(certificate.checkIssued(new X509Certificate(root))).toBe(true);
      expect(root).toBe(emulator.caCertificate);
      expect(certificate.checkPrivateKey(createPrivateKey(privateKey))).toBe(true);
      expect(BigInt(`0x${certificate.serialNumber}`).toString(10)).toBe(record.serialNumber);
      // Listed like any X.509 credential; the key is in no answer and no export, secrets included.
      expect((await call('GET', `${CCM}/x509-credentials`)).body).toContainEqual(record);
      expect(JSON.stringify(emulator.exportState({ includeSecrets: true }))).not.toContain(privateKey.split('\n')[1]);
    },
  );

  it('generates a Common Name when none is given, and lasts a year by default', async () => {
    const generated = await generateCertificate(emulator);
    expect(generated.commonName).toMatch(/^device-[0-9a-f]{12}$/);
    const record = (await call('GET', `${CCM}/x509-credentials/${generated.id}`)).body;
    expect(Math.round((Date.parse(record.invalidAfter) - Date.parse(record.createdDate)) / 86_400_000)).toBe(365);
  });

  it.each([
    [{ commonName: 'meter/001' }, /commonName/],
    [{ commonName: 'CN=x, O=evil' }, /commonName/],
    [{ commonName: ' padded' }, /commonName/],
    [{ commonName: '' }, /commonName/],
    [{ commonName: 'x'.repeat(65) }, /commonName/],
    [{ ttl: 'PT30S' }, /PT1M to P3650D/],
    [{ ttl: 'P3651D' }, /PT1M to P3650D/],
    [{ ttl: 'P1Y' }, /years and months/],
    [{ ttl: '30d' }, /ISO 8601/],
    [{ ttl: 'P' }, /ttl/],
    [{ other: 1 }, /other|additional/],
  ])('refuses %j with 400 and creates nothing', async (body, message) => {
    const before = (await call('GET', `${CCM}/x509-credentials`)).body.length;
    const response = await call('POST', `${CCM}/x509-credentials/generate`, { body });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await call('GET', `${CCM}/x509-credentials`)).body).toHaveLength(before);
  });
});

describe('X.509 credential states', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('permits the moves basic credentials have: Revoked is final, Inactive is never a target', async () => {
    const { id } = await generateCertificate(emulator);
    expect((await setCertificateState(emulator, id, 'Inactive')).status).toBe(400);
    expect((await setCertificateState(emulator, id, 'Suspended')).status).toBe(204);
    expect((await setCertificateState(emulator, id, 'Active')).status).toBe(204);
    expect((await setCertificateState(emulator, id, 'Active')).status).toBe(204);
    expect((await setCertificateState(emulator, id, 'Revoked')).status).toBe(204);
    const refused = await setCertificateState(emulator, id, 'Active');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/Revoked is final/);
    expect((await call('GET', `${CCM}/x509-credentials/${id}`)).body.state).toBe('Revoked');
    expect((await setCertificateState(emulator, 'no-such-id', 'Active')).status).toBe(404);
  });

  it('registering a PEM that is not a certificate is a 400 that changes nothing', async () => {
    const key = (await generateCertificate(emulator)).privateKey;
    const before = (await call('GET', `${CCM}/x509-credentials`)).body.length;
    for (const certificate of [
      key,
      '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n',
    ]) {
      const response = await call('POST', `${CCM}/x509-credentials`, { body: { certificate } });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/certificate/);
    }
    expect((await call('GET', `${CCM}/x509-credentials`)).body).toHaveLength(before);
  });

  it('suspending basic credentials disconnects, at once, the clients logged in with them', async () => {
    const created = (
      await call('POST', `${CCM}/basic-credentials`, { body: { username: 'tls-basic', password: 'secret-password' } })
    ).body;
    const plain = await mqtt.connectAsync(emulator.mqttUrl, {
      username: 'tls-basic',
      password: 'secret-password',
      reconnectPeriod: 0,
    });
    const secure = (await connectTls(emulator, { username: 'tls-basic', password: 'secret-password' })) as MqttClient;
    const gone = Promise.all([closed(plain), closed(secure)]);
    expect(
      (await call('PATCH', `${CCM}/basic-credentials/${created.id}/state`, { body: { state: 'Suspended' } })).status,
    ).toBe(204);
    await gone;
  });
});

describe('the root certificate and the per-tenant switch', async () => {
  const fixture = fixtureFile({
    ...JSON.parse(await readFile(new URL('../../fixtures/default.json', import.meta.url), 'utf8')),
    tlsSettings: [{ tenantId: 'globex', clientAuth: 'required' }],
  });
  const emulator = await startTestEmulator({ fixtures: fixture });
  const call = api(emulator);

  it('seeds tlsSettings from the fixture; PUT refuses a mode it does not know', async () => {
    expect((await call('GET', `${CCM}/tls-settings`)).body).toEqual({
      clientAuth: 'off',
      inherited: true,
      emulatorDefault: 'off',
    });
    expect(emulator.exportState().collections['tls-settings']).toEqual({
      globex: expect.objectContaining({ tenantId: 'globex', clientAuth: 'required' }),
    });
    const refused = await call('PUT', `${CCM}/tls-settings`, { body: { clientAuth: 'sometimes' } });
    expect(refused.status).toBe(400);
    expect((await call('GET', `${CCM}/tls-settings`)).body.clientAuth).toBe('off');
  });

  it('GET /_emu/tls/ca.pem is open with auth on, like health', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const response = await fetch(`${secured.url}/_emu/tls/ca.pem`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(secured.caCertificate);
  });

  it('a client whose certificate expired is refused; one used before keeps its lastUseDate', async () => {
    const generated = await generateCertificate(emulator, { ttl: 'PT5M' });
    const client = (await connectTls(emulator, {
      cert: generated.certificateChain,
      key: generated.privateKey,
    })) as MqttClient;
    await client.endAsync();
    const { lastUseDate } = (await call('GET', `${CCM}/x509-credentials/${generated.id}`)).body;
    await call('PUT', '/_emu/clock', { body: { advance: 'PT10M' } });
    try {
      expect(await connectTls(emulator, { cert: generated.certificateChain, key: generated.privateKey })).toEqual({
        refused: 5,
      });
      expect((await call('GET', `${CCM}/x509-credentials/${generated.id}`)).body.lastUseDate).toBe(lastUseDate);
    } finally {
      await call('PUT', '/_emu/clock', { body: { real: true } });
    }
  });
});
