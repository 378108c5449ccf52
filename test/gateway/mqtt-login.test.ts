import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { connectAnswer } from '../helpers/mqtt-connect.js';
import { assertBuilt, startProcess, type EmulatorProcess } from '../store/emulator-process.js';

const CCM = '/ccm/api/v1';

/** CONNECT with these credentials: `ok`, or the CONNACK return code of the refusal. */
const connect = (
  emulator: Pick<RunningEmulator, 'mqttUrl'>,
  credentials: { username?: string; password?: string } = {},
) => connectAnswer(emulator.mqttUrl, credentials);

const BAD_USERNAME_OR_PASSWORD = 4;
const NOT_AUTHORIZED = 5;

describe('MQTT login with --mqtt-auth anonymous (the default)', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const credential = async (id: string) => (await call('GET', `${CCM}/basic-credentials/${id}`)).body;
  const setState = (id: string, state: string) =>
    call('PATCH', `${CCM}/basic-credentials/${id}/state`, { body: { state } });

  it('admits a client without credentials, as devices known by their endpoint token connect', async () => {
    expect(await connect(emulator)).toBe('ok');
  });

  it('checks a client that sends credentials: refused and then accepted as its credential changes state', async () => {
    const created = (
      await call('POST', `${CCM}/basic-credentials`, { body: { username: 'meter-login', password: 'right-password' } })
    ).body;
    const login = { username: 'meter-login', password: 'right-password' };
    expect(await connect(emulator, { ...login, password: 'wrong-password' })).toBe(BAD_USERNAME_OR_PASSWORD);
    expect(await connect(emulator, { username: 'nobody', password: 'right-password' })).toBe(BAD_USERNAME_OR_PASSWORD);
    expect(await connect(emulator, { username: 'meter-login' })).toBe(BAD_USERNAME_OR_PASSWORD);
    // A refused login leaves the credential as it was.
    expect(await credential(created.id)).not.toHaveProperty('lastUseDate');

    expect((await setState(created.id, 'Suspended')).status).toBe(204);
    expect(await connect(emulator, login)).toBe(BAD_USERNAME_OR_PASSWORD);
    expect((await credential(created.id)).state).toBe('Suspended');

    expect((await setState(created.id, 'Active')).status).toBe(204);
    expect(await connect(emulator, login)).toBe('ok');
    const used = await credential(created.id);
    expect(used.state).toBe('Active');
    expect(used.lastUseDate).toEqual(expect.any(String));

    expect((await setState(created.id, 'Revoked')).status).toBe(204);
    expect(await connect(emulator, login)).toBe(BAD_USERNAME_OR_PASSWORD);
  });

  it('the first use makes Inactive credentials Active and sets lastUseDate', async () => {
    const created = (await call('POST', `${CCM}/basic-credentials`, { body: {} })).body;
    expect(created.state).toBe('Inactive');
    expect(await connect(emulator, { username: created.username, password: created.password })).toBe('ok');
    const used = await credential(created.id);
    expect(used).toMatchObject({ state: 'Active', lastUseDate: expect.any(String) });
    expect(used.lastUseDate >= created.createdDate).toBe(true);
  });

  it('a changed password replaces the old one at once', async () => {
    const created = (await call('POST', `${CCM}/basic-credentials`, { body: { password: 'old-password' } })).body;
    const changed = await call('PATCH', `${CCM}/basic-credentials/${created.id}/password`, { body: {} });
    expect(await connect(emulator, { username: created.username, password: 'old-password' })).toBe(
      BAD_USERNAME_OR_PASSWORD,
    );
    expect(await connect(emulator, { username: created.username, password: changed.body.password })).toBe('ok');
  });

  it('the fixtures’ credential connects', async () => {
    expect(await connect(emulator, { username: 'meter-001', password: 'meter-001-password' })).toBe('ok');
  });
});

describe('MQTT login with --mqtt-auth basic', async () => {
  const emulator = await startTestEmulator({ mqttAuth: 'basic' });

  it('refuses a client without credentials, admits one with valid basic credentials', async () => {
    expect(await connect(emulator)).toBe(NOT_AUTHORIZED);
    const created = (await api(emulator)('POST', `${CCM}/basic-credentials`, { body: {} })).body;
    expect(await connect(emulator, { username: created.username, password: created.password })).toBe('ok');
    expect(await connect(emulator, { username: created.username, password: 'nope' })).toBe(BAD_USERNAME_OR_PASSWORD);
  });

  it('a device then speaks KP1 as usual', async () => {
    const created = (await api(emulator)('POST', `${CCM}/basic-credentials`, { body: {} })).body;
    const client = await mqtt.connectAsync(emulator.mqttUrl, {
      username: created.username,
      password: created.password,
      reconnectPeriod: 0,
    });
    try {
      const reply = new Promise<string>((resolve) => client.on('message', (topic) => resolve(topic)));
      await client.subscribeAsync('kp1/smart-meter-v1/epmx/meter-001-token/get/keys/1/status');
      await client.publishAsync('kp1/smart-meter-v1/epmx/meter-001-token/get/keys/1', '');
      expect(await reply).toBe('kp1/smart-meter-v1/epmx/meter-001-token/get/keys/1/status');
    } finally {
      await client.endAsync();
    }
  });
});

describe('platform-emu start --mqtt-auth basic', () => {
  let emulatorProcess: EmulatorProcess | undefined;
  beforeAll(assertBuilt);
  afterAll(() => emulatorProcess?.stop('SIGKILL'));

  it('requires basic credentials of every MQTT client, and says so in /_emu/health', async () => {
    emulatorProcess = await startProcess(['--port', '0', '--quiet', '--in-memory', '--mqtt-auth', 'basic']);
    const health = (await (await fetch(`${emulatorProcess.url}/_emu/health`)).json()) as {
      mqtt: { url: string; auth: string };
    };
    expect(health.mqtt.auth).toBe('basic');
    const target = { mqttUrl: health.mqtt.url };
    expect(await connect(target)).toBe(NOT_AUTHORIZED);
    expect(await connect(target, { username: 'meter-001', password: 'meter-001-password' })).toBe('ok');
  });
});
