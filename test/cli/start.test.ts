import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOneLineError, getJson, processesOfThisFile, register } from '../helpers/cli-processes.js';
import { cli } from '../store/emulator-process.js';

const { freshDir, start } = processesOfThisFile();

describe('platform-emu start', () => {
  it(
    'prints a banner with the URL, services, state, tenants and how to get a token, and answers ' + '/_emu/health',
    async () => {
      const dir = freshDir();
      const emulator = await start(['--port', '0', '--data', dir]);
      const banner = emulator.stdout();
      expect(banner).toMatch(/^platform-emu ready at http:\/\/127\.0\.0\.1:\d+ {2}\(auth off\)/);
      expect(banner).toContain(`Endpoint register`);
      expect(banner).toContain(`${emulator.url}/epr/api/v1`);
      expect(banner).toContain(`State     ${dir}`);
      expect(banner).toContain('Tenants   acme (default), globex');
      expect(banner).toContain(`platform-emu token --data-dir ${dir}`);
      expect(banner).toContain(`Dashboard ${emulator.url}/_emu/ui/`);

      const health = await getJson(`${emulator.url}/_emu/health`);
      expect(health).toMatchObject({
        status: 200,
        body: { status: 'ready', url: emulator.url, dataDir: dir, inMemory: false, auth: 'off' },
      });
      expect(health.body.services.map((s: { name: string }) => s.name)).toEqual(
        expect.arrayContaining(['tenant-manager', 'app-manager', 'epr']),
      );
      expect((await getJson(`${emulator.url}/epr/api/v1/endpoints`)).body.totalElements).toBe(10);
      await emulator.stop('SIGTERM');
    },
  );

  it('with --quiet prints only the URL', async () => {
    const emulator = await start(['--port', '0', '--quiet', '--in-memory']);
    expect(emulator.stdout()).toBe(`${emulator.url}\n`);
    await emulator.stop('SIGTERM');
    expect(emulator.stderr()).toBe('');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s finishes, saves the state, releases the lock and exits 0',
    async (signal) => {
      const dir = freshDir();
      const emulator = await start(['--port', '0', '--data', dir]);
      expect(existsSync(join(dir, 'emulator.lock'))).toBe(true);
      expect(await register(emulator.url, `saved-on-${signal}`)).toBe(201);
      expect(readFileSync(join(dir, 'mutations.jsonl'), 'utf8')).toContain(`saved-on-${signal}`);

      expect(await emulator.stop(signal)).toEqual({ exitCode: 0, signal: undefined });
      expect(emulator.stderr()).toContain(`${signal}: finishing requests and saving state`);
      expect(readFileSync(join(dir, 'mutations.jsonl'), 'utf8')).toBe('');
      expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).collections.endpoints).toHaveProperty(
        `saved-on-${signal}`,
      );
      expect(existsSync(join(dir, 'emulator.lock'))).toBe(false);
    },
  );

  it('answers every request it accepted before a SIGTERM, and keeps what it acknowledged', async () => {
    const dir = freshDir();
    const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
    const writes = Array.from({ length: 30 }, (_, i) => register(emulator.url, `burst-${i}`).catch(() => 0));
    const stopped = emulator.stop('SIGTERM');
    const statuses = await Promise.all(writes);
    expect(await stopped).toMatchObject({ exitCode: 0 });
    expect(statuses.every((s) => s === 201 || s === 0)).toBe(true);
    const saved = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).collections.endpoints;
    statuses.forEach((status, i) => {
      if (status === 201) expect(saved).toHaveProperty(`burst-${i}`);
    });
  });

  /** Every start flag as its environment variable, on a data directory of its own. */
  const startEnv = (dir: string) => ({
    PLATFORM_EMU_PORT: '0',
    PLATFORM_EMU_MQTT_PORT: '0',
    PLATFORM_EMU_DATA: dir,
    PLATFORM_EMU_QUIET: '1',
    PLATFORM_EMU_AUTH: 'on',
    PLATFORM_EMU_FIXTURES: 'none',
  });

  it('takes every flag from its environment variable', async () => {
    const dir = freshDir();
    const env = startEnv(dir);
    const fromEnv = await start([], env);
    expect(fromEnv.stdout()).toBe(`${fromEnv.url}\n`);
    const health = await getJson(`${fromEnv.url}/_emu/health`);
    expect(health.body).toMatchObject({ dataDir: dir, auth: 'on', defaultTenant: expect.any(String) });
    expect((await getJson(`${fromEnv.url}/epr/api/v1/endpoints`)).status).toBe(401);
    await fromEnv.stop('SIGTERM');
  });

  it('a flag wins over its variable, and PLATFORM_EMU_IN_MEMORY=0 means off', async () => {
    const dir = freshDir();
    const env = startEnv(dir);
    const inMemory = await start(['--auth', 'off'], { ...env, PLATFORM_EMU_IN_MEMORY: '1' });
    expect((await getJson(`${inMemory.url}/_emu/health`)).body).toMatchObject({
      auth: 'off',
      inMemory: true,
      dataDir: null,
    });
    await inMemory.stop('SIGTERM');

    const switchedOff = await start([], { ...env, PLATFORM_EMU_IN_MEMORY: '0' });
    expect((await getJson(`${switchedOff.url}/_emu/health`)).body).toMatchObject({ inMemory: false, dataDir: dir });
    await switchedOff.stop('SIGTERM');
  });

  it('with --in-memory writes nothing, not even the default data directory', async () => {
    const cwd = freshDir();
    mkdirSync(cwd);
    const emulator = await start(['--port', '0', '--in-memory'], {}, cwd);
    expect(emulator.stdout()).toContain('in memory (nothing is written)');
    expect(emulator.stdout()).toContain(`platform-emu token --url ${emulator.url}`);
    expect(await register(emulator.url, 'memory-only')).toBe(201);
    expect(await emulator.stop('SIGTERM')).toMatchObject({ exitCode: 0 });
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('uses ./.platform-emu by default, and the token command finds the running emulator there', async () => {
    const cwd = freshDir();
    mkdirSync(cwd);
    const emulator = await start(['--port', '0'], {}, cwd);
    expect(emulator.stdout()).toMatch(/Token {5}(?:npx )?platform-emu token {3}/);
    const token = await cli(['token', '--json'], { cwd });
    expect(token.exitCode, String(token.stderr)).toBe(0);
    expect(JSON.parse(String(token.stdout)).claims.iss).toBe(`${emulator.url}/auth/realms/acme`);
    await emulator.stop('SIGTERM');
    expect(readdirSync(join(cwd, '.platform-emu')).sort()).toEqual([
      'mutations.jsonl',
      'signing-key.json',
      'state.json',
      'tls-ca.json',
    ]);
  });

  it('with --fixtures none starts an empty platform', async () => {
    const emulator = await start(['--port', '0', '--in-memory', '--fixtures', 'none']);
    expect(emulator.stdout()).toContain('Tenants   none');
    expect((await getJson(`${emulator.url}/epr/api/v1/endpoints`)).body).toEqual({ totalElements: 0, content: [] });
    expect((await getJson(`${emulator.url}/app-manager/api/v1/applications`)).body.totalElements ?? 0).toBe(0);
    await emulator.stop('SIGTERM');
  });

  it('with a --fixtures file that does not validate fails with a message naming the record', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'));
    delete fixture.endpoints[2].appVersion;
    const file = join(dir, 'bad-fixtures.json');
    writeFileSync(file, JSON.stringify(fixture));
    const result = await cli(['start', '--port', '0', '--mqtt-port', '0', '--in-memory', '--fixtures', file]);
    expectOneLineError(result, 1, new RegExp(`${file}: endpoints\\[2\\] \\(meter-003\\).*appVersion`));

    const missing = await cli([
      'start',
      '--port',
      '0',
      '--mqtt-port',
      '0',
      '--in-memory',
      '--fixtures',
      join(dir, 'nope.json'),
    ]);
    expectOneLineError(missing, 1, /Cannot read the fixture file .*nope\.json: no such file/);
  });

  it('refuses a data directory another running emulator holds, naming its pid and URL', async () => {
    const dir = freshDir();
    const first = await start(['--port', '0', '--quiet', '--data', dir]);
    const second = await cli(['start', '--port', '0', '--mqtt-port', '0', '--data', dir]);
    expect(second.exitCode).toBe(1);
    expect(String(second.stderr)).toContain(
      `is in use by another platform-emu (pid ${first.child.pid} at ${first.url})`,
    );
    expect((await getJson(`${first.url}/_emu/health`)).status).toBe(200);
    await first.stop('SIGTERM');
  });

  it('says which flag to change when the port is taken', async () => {
    // Any listener takes the port: a plain server here, not a second emulator process.
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = String((taken.address() as AddressInfo).port);
    try {
      const second = await cli(['start', '--port', port, '--mqtt-port', '0', '--in-memory']);
      expectOneLineError(
        second,
        1,
        new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use: choose another with --port`),
      );
    } finally {
      taken.close();
    }
  });
});
