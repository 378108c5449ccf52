import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { ADMIN_TOKEN, BIN, cleanEnv, cli } from '../helpers/device-cli.js';

describe('platform-emu device', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];
  const rest = api(emulator);

  it('register prints the endpoint id and token; --json for scripts', async () => {
    const human = await cli(
      'device',
      'register',
      '--app-version',
      'tracker-v1',
      '--id',
      'reg-1',
      '--token',
      'reg-1-token',
      '--metadata',
      '{"model":"t1"}',
      ...url,
    );
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain('reg-1');
    expect(human.stdout).toContain('reg-1-token (Inactive)');
    const stored = await rest('GET', '/epr/api/v1/endpoints/reg-1?include=metadata');
    expect(stored.body).toMatchObject({
      endpointId: 'reg-1',
      appVersion: { name: 'tracker-v1' },
      metadata: { model: 't1' },
    });

    const json = await cli('device', 'register', '--app-version', 'tracker-v1', '--json', ...url);
    expect(json.exitCode).toBe(0);
    const registered = JSON.parse(json.stdout);
    expect(registered).toMatchObject({ token: expect.any(String), status: 'Inactive', appVersion: 'tracker-v1' });
    expect(registered.location).toBe(`${emulator.url}/epr/api/v1/endpoints/${registered.endpointId}`);
    expect((await rest('GET', `/epr/api/v1/endpoints/${registered.endpointId}`)).status).toBe(200);
  });

  it('register: the emulator refusing is exit 1 with its message, bad flags are exit 2', async () => {
    const unknown = await cli('device', 'register', '--app-version', 'no-such-version', ...url);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('no-such-version');
    const taken = await cli('device', 'register', '--app-version', 'tracker-v1', '--id', 'tracker-001', ...url);
    expect(taken.exitCode).toBe(1);
    expect(taken.stderr).toContain('409');
    const metadata = await cli('device', 'register', '--app-version', 'tracker-v1', '--metadata', '[1,2]', ...url);
    expect(metadata.exitCode).toBe(2);
    expect((await cli('device', 'register', ...url)).exitCode).toBe(2);
  });
});

describe('platform-emu device against an emulator with --auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on', adminToken: ADMIN_TOKEN });

  it('fetches a test token for its REST calls unless --access-token is given', async () => {
    const registered = await cli(
      'device',
      'register',
      '--app-version',
      'tracker-v1',
      '--id',
      'authed-1',
      '--json',
      '--url',
      emulator.url,
    );
    expect(registered.exitCode).toBe(0);
    expect(JSON.parse(registered.stdout).endpointId).toBe('authed-1');
    const badToken = await cli(
      'device',
      'register',
      '--app-version',
      'tracker-v1',
      '--access-token',
      'not-a-jwt',
      '--url',
      emulator.url,
    );
    expect(badToken.exitCode).toBe(1);
    expect(badToken.stderr).toContain('401');
  });

  it('without a token or the admin token, says where either comes from', async () => {
    const { PLATFORM_EMU_ADMIN_TOKEN: _admin, ...env } = cleanEnv();
    const args = ['device', 'register', '--app-version', 'tracker-v1', '--url', emulator.url];
    const result = await execa('node', [BIN, ...args], { reject: false, env, extendEnv: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('answered 401: The control plane needs the emulator');
    expect(result.stderr).toContain(
      'at start. Pass --access-token <jwt> (platform-emu token), or give the admin token that gets one in ' +
        'PLATFORM_EMU_ADMIN_TOKEN',
    );
  });
});
