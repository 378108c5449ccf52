import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../../src/auth/tokens.js';
import { assertBuilt, cli, startProcess, type EmulatorProcess } from '../store/emulator-process.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-cli-'));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);
const running: EmulatorProcess[] = [];

beforeAll(assertBuilt);
afterAll(async () => {
  await Promise.all(running.map((e) => e.stop('SIGKILL')));
  rmSync(root, { recursive: true, force: true });
});

async function start(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<EmulatorProcess> {
  const emulator = await startProcess(args, env, cwd);
  running.push(emulator);
  return emulator;
}

let template: Promise<string> | undefined;

/** A data directory with the default fixtures, as a real start and a clean stop leave it (made once, then copied). */
async function seededDir(): Promise<string> {
  template ??= (async () => {
    const dir = freshDir();
    const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
    expect(await emulator.stop('SIGTERM')).toMatchObject({ exitCode: 0 });
    expect(readdirSync(dir).sort()).toEqual(['mutations.jsonl', 'signing-key.json', 'state.json', 'tls-ca.json']);
    return dir;
  })();
  const dir = freshDir();
  cpSync(await template, dir, { recursive: true });
  return dir;
}

async function getJson(url: string, token?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, body: await response.json() };
}

async function register(url: string, endpointId: string): Promise<number> {
  const response = await fetch(`${url}/epr/api/v1/endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ endpointId, appVersion: { name: 'tracker-v1' } }),
  });
  return response.status;
}

const endpointIds = (list: { content: Array<{ endpointId: string }> }) => list.content.map((e) => e.endpointId).sort();

function expectOneLineError(
  result: { exitCode?: number; stderr: unknown; stdout: unknown },
  exitCode: number,
  pattern: RegExp,
): void {
  const stderr = String(result.stderr).trim();
  expect(result.exitCode, stderr).toBe(exitCode);
  expect(stderr.split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(pattern);
  expect(String(result.stdout)).toBe('');
}

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
    const fromEnv = await startProcess([], env);
    running.push(fromEnv);
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
    expect(readdirSync(join(cwd, '.platform-emu')).sort()).toEqual([
      'emulator.lock',
      'mutations.jsonl',
      'signing-key.json',
      'state.json',
      'tls-ca.json',
    ]);
    const token = await cli(['token', '--json'], { cwd });
    expect(token.exitCode, String(token.stderr)).toBe(0);
    expect(JSON.parse(String(token.stdout)).claims.iss).toBe(`${emulator.url}/auth/realms/acme`);
    await emulator.stop('SIGTERM');
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
    const first = await start(['--port', '0', '--quiet', '--in-memory']);
    const port = new URL(first.url).port;
    const second = await cli(['start', '--port', port, '--mqtt-port', '0', '--in-memory']);
    expectOneLineError(
      second,
      1,
      new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use: choose another with --port`),
    );
    await first.stop('SIGTERM');
  });
});

describe.concurrent('usage errors', () => {
  it.each([
    [['start', '--bogus'], {}, /unknown option '--bogus'/],
    [['--bogus'], {}, /unknown option '--bogus'/],
    [['bogus'], {}, /unknown command 'bogus'/],
    [['start', '--port', '70000'], {}, /--port.*'70000' is invalid\. a port is a whole number from 0 to 65535/],
    [['start', '--port', 'http'], {}, /--port.*'http' is invalid/],
    [['start'], { PLATFORM_EMU_PORT: 'abc' }, /'abc' from env 'PLATFORM_EMU_PORT' is invalid/],
    [['start', '--auth', 'maybe'], {}, /Allowed choices are off, on/],
    [['start', '--compat', 'ecr'], {}, /expected <service>=<revision>/],
    [
      ['start', '--compat', 'foo=9'],
      {},
      /--compat foo=9: foo has no revisions to choose from; the choices are .*cex=1\|2/,
    ],
    [['start', '--compat', 'cex=9'], {}, /--compat cex=9: the revisions of cex are 1, 2 \(default 2\)/],
    [['exec', '--compat', 'app-manager=3', '--', 'true'], {}, /the revisions of app-manager are 1, 2/],
    [
      ['token', '--scope', 'bogus:scope'],
      {},
      /Unknown scope bogus:scope; the scopes are: .*emulator:admin.*endpoint:read/,
    ],
    [['status', '--bogus'], {}, /unknown option '--bogus'/],
    [['token', '--ttl', '0'], {}, /--ttl.*at least 1/],
    [['fixtures', 'import'], {}, /missing required argument 'file'/],
  ])('%j prints one line on stderr and exits 2', async (args, env, pattern) => {
    expectOneLineError(await cli(args as string[], { env: env as Record<string, string> }), 2, pattern);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const result = await cli([flag]);
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout).trim()).toBe(version);
    }
  });

  it('--help of every command, and of every subcommand, shows an example', async () => {
    const commandsOf = (help: string) =>
      [...(help.split(/^Commands:$/m)[1] ?? '').matchAll(/^ {2}([a-z][a-z-]*)/gm)]
        .map((m) => m[1])
        .filter((name) => name !== 'help');
    // Each help is read once: a command's own help also names its subcommands.
    const helps = new Map<string, string>();
    const help = async (path: string[]) => {
      const result = await cli([...path, '--help']);
      expect(result.exitCode, `${path.join(' ')} --help: ${result.stderr}`).toBe(0);
      helps.set(path.join(' '), String(result.stdout));
      return String(result.stdout);
    };
    const names = commandsOf(await help([]));
    await Promise.all(
      names.map(async (name) => {
        for (const sub of commandsOf(await help([name]))) await help([name, sub]);
      }),
    );
    expect([...helps.keys()]).toEqual(
      expect.arrayContaining(['start', 'token', 'fixtures', 'fixtures export', 'fixtures import']),
    );
    const withoutExample = [...helps].filter(([, text]) => !/Examples?:\n\s+\$ .*platform-emu /.test(text));
    expect(withoutExample.map(([path]) => path)).toEqual([]);
  }, 60_000); // about forty CLI processes, one per help text: real work that takes a while on a busy machine

  it('start --help documents the environment variable of every flag', async () => {
    const help = String((await cli(['start', '--help'])).stdout);
    const flat = help.replace(/\s+/g, ' ');
    // --detach alone has none: a variable would also detach the background process it starts.
    const flags = [...help.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)]
      .map((m) => m[1])
      .filter((f) => f !== '--help' && f !== '--detach');
    expect(flags.length).toBeGreaterThan(8);
    for (const variable of [
      'PLATFORM_EMU_PORT',
      'PLATFORM_EMU_HOST',
      'PLATFORM_EMU_DATA',
      'PLATFORM_EMU_IN_MEMORY',
      'PLATFORM_EMU_FIXTURES',
      'PLATFORM_EMU_AUTH',
      'PLATFORM_EMU_COMPAT',
      'PLATFORM_EMU_QUIET',
    ]) {
      expect(flat).toContain(`env: ${variable}`);
    }
    expect(flat.match(/env: PLATFORM_EMU_/g)).toHaveLength(flags.length);
  });
});

describe('platform-emu token', () => {
  it('signs a token from the keys in a stopped data directory, and a running emulator accepts it', async () => {
    const dir = await seededDir();
    const result = await cli(['token', '--data', dir]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const token = String(result.stdout).trim();
    expect(token.split('.')).toHaveLength(3);

    const emulator = await start(['--port', '0', '--quiet', '--auth', 'on', '--data', dir]);
    expect((await getJson(`${emulator.url}/epr/api/v1/endpoints`)).status).toBe(401);
    const list = await getJson(`${emulator.url}/epr/api/v1/endpoints`, token);
    expect(list.status).toBe(200);
    expect(list.body.totalElements).toBe(10);
    await emulator.stop('SIGTERM');
  });

  it("--admin signs the control plane's token with the data directory's key", async () => {
    const dir = await seededDir();
    const result = await cli(['token', '--admin', '--json', '--data-dir', dir]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const { token, claims } = JSON.parse(String(result.stdout));
    expect(claims).toMatchObject({ scope: 'emulator:admin', iss: 'urn:platform-emu:control-plane' });
    expect(claims).not.toHaveProperty('exp');
    const key = JSON.parse(readFileSync(join(dir, 'signing-key.json'), 'utf8'));
    expect(verifyAccessToken(key, token).scope).toBe('emulator:admin');
    expectOneLineError(
      await cli(['token', '--admin', '--data-dir', join(root, 'never-started')]),
      1,
      /has no signing key and no running emulator there keeps an admin token/,
    );
  });

  it('with --json prints the decoded claims; --scope is repeatable; --tenant and --ttl are honoured', async () => {
    const dir = await seededDir();
    const result = await cli([
      'token',
      '--data',
      dir,
      '--json',
      '--tenant',
      'globex',
      '--scope',
      'endpoint:read',
      '--scope',
      'application:read endpoint:update',
      '--ttl',
      '60',
    ]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const printed = JSON.parse(String(result.stdout));
    expect(printed.claims).toMatchObject({
      tenant_id: 'globex',
      scope: 'endpoint:read application:read endpoint:update',
      iss: expect.stringMatching(/\/auth\/realms\/globex$/),
    });
    expect(printed.claims.exp - printed.claims.iat).toBe(60);
    expect(printed.token.split('.')).toHaveLength(3);
  });

  it('asks a running emulator given by --url (an in-memory one has no keys on disk)', async () => {
    // Its control plane needs the admin token: one chosen at start and given to the CLI, as in CI.
    const admin = { PLATFORM_EMU_ADMIN_TOKEN: 'in-memory-admin-token' };
    const emulator = await start(['--port', '0', '--quiet', '--in-memory', '--auth', 'on'], admin);
    const result = await cli(['token', '--url', emulator.url, '--json', '--scope', 'endpoint:read'], { env: admin });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const { token, claims } = JSON.parse(String(result.stdout));
    expect(claims).toMatchObject({
      tenant_id: 'acme',
      scope: 'endpoint:read',
      iss: `${emulator.url}/auth/realms/acme`,
    });
    expect((await getJson(`${emulator.url}/epr/api/v1/endpoints`, token)).status).toBe(200);
    const forbidden = await fetch(`${emulator.url}/epr/api/v1/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ appVersion: { name: 'tracker-v1' } }),
    });
    expect(forbidden.status).toBe(403);
    await emulator.stop('SIGTERM');
  });

  it(
    'fails with one clear line for an unknown tenant (exit 2), a directory never started, or an emulator that ' +
      'is gone',
    async () => {
      const dir = await seededDir();
      expectOneLineError(
        await cli(['token', '--data', dir, '--tenant', 'initech']),
        2,
        /There is no tenant initech; tenants: acme, globex/,
      );
      expectOneLineError(await cli(['token', '--data', join(root, 'never-started')]), 1, /has no signing key yet/);
      expectOneLineError(
        await cli(['token', '--url', 'http://127.0.0.1:9']),
        1,
        /Cannot reach the emulator at http:\/\/127\.0\.0\.1:9/,
      );
    },
  );
});

describe('platform-emu fixtures', () => {
  it('exports the whole state of a stopped directory to stdout and to a file', async () => {
    const dir = await seededDir();
    const toStdout = await cli(['fixtures', 'export', '--data', dir]);
    expect(toStdout.exitCode, String(toStdout.stderr)).toBe(0);
    const document = JSON.parse(String(toStdout.stdout));
    expect(document.schemaVersion).toBe(1);
    expect(Object.keys(document.collections.endpoints)).toHaveLength(12);
    expect(Object.keys(document.collections.tenants).sort()).toEqual(['acme', 'globex']);

    const file = join(dir, '..', `${dirs}-export.json`);
    const toFile = await cli(['fixtures', 'export', file, '--data', dir]);
    expect(toFile.exitCode).toBe(0);
    expect(String(toFile.stdout)).toBe('');
    expect(String(toFile.stderr)).toContain(`Exported the state to ${file}`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(document);
    expect(existsSync(join(dir, 'emulator.lock'))).toBe(false);
  });

  it('exports from a running emulator, found by its lock or given by --url', async () => {
    const dir = await seededDir();
    const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
    expect(await register(emulator.url, 'only-in-the-log')).toBe(201);
    for (const target of [
      ['--data', dir],
      ['--url', emulator.url],
    ]) {
      const result = await cli(['fixtures', 'export', ...target]);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(JSON.parse(String(result.stdout)).collections.endpoints).toHaveProperty('only-in-the-log');
    }
    await emulator.stop('SIGTERM');
  });

  it('imports an edited export into a stopped directory, and the next start serves it', async () => {
    const dir = await seededDir();
    const document = JSON.parse(String((await cli(['fixtures', 'export', '--data', dir])).stdout));
    delete document.collections.endpoints['meter-006'];
    document.collections.endpoints['meter-007'] = {
      ...document.collections.endpoints['meter-005'],
      endpointId: 'meter-007',
      token: 'meter-007-token',
    };
    const file = join(root, `${dirs}-edited.json`);
    writeFileSync(file, JSON.stringify(document));

    const result = await cli(['fixtures', 'import', file, '--data', dir]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stderr)).toContain(`Imported ${file}; the previous state was replaced.`);
    const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
    const ids = endpointIds((await getJson(`${emulator.url}/epr/api/v1/endpoints?limit=0`)).body);
    expect(ids).toContain('meter-007');
    expect(ids).not.toContain('meter-006');
    await emulator.stop('SIGTERM');
  });

  it('imports a fixture file into a running emulator', async () => {
    const emulator = await start(['--port', '0', '--quiet', '--in-memory', '--fixtures', 'none']);
    const result = await cli(['fixtures', 'import', 'fixtures/default.json', '--url', emulator.url]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect((await getJson(`${emulator.url}/epr/api/v1/endpoints`)).body.totalElements).toBe(10);
    await emulator.stop('SIGTERM');
  });

  it('changes nothing when the file does not validate, and names the wrong record (stopped and running)', async () => {
    const dir = await seededDir();
    const before = String((await cli(['fixtures', 'export', '--data', dir])).stdout);
    const document = JSON.parse(before);
    delete document.collections.endpoints['meter-004'].tenantId;
    document.collections.endpoints['meter-001'].metadata = { changed: true };
    const badExport = join(root, `${dirs}-bad-export.json`);
    writeFileSync(badExport, JSON.stringify(document));
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'));
    fixture.endpoints = [
      { endpointId: 'just-one', appVersion: 'smart-meter-v1', token: 'just-one-token' },
      { ...fixture.endpoints[0], endpointId: 42 },
    ];
    const badFixture = join(root, `${dirs}-bad-fixture.json`);
    writeFileSync(badFixture, JSON.stringify(fixture));

    const stopped = await cli(['fixtures', 'import', badExport, '--data', dir]);
    expectOneLineError(stopped, 1, /collections\.endpoints\["meter-004"\].*tenantId/);
    expectOneLineError(await cli(['fixtures', 'import', badFixture, '--data', dir]), 1, /endpoints\[1\]/);
    expect(String((await cli(['fixtures', 'export', '--data', dir])).stdout)).toBe(before);

    const emulator = await start(['--port', '0', '--quiet', '--data', dir]);
    expectOneLineError(
      await cli(['fixtures', 'import', badExport, '--url', emulator.url]),
      1,
      /answered 400: .*collections\.endpoints\["meter-004"\]/,
    );
    expectOneLineError(
      await cli(['fixtures', 'import', badFixture, '--data', dir]),
      1,
      /answered 400: .*endpoints\[1\]/,
    );
    const after = JSON.parse(String((await cli(['fixtures', 'export', '--url', emulator.url])).stdout));
    expect(after.collections).toEqual(JSON.parse(before).collections);
    await emulator.stop('SIGTERM');
  });

  it('refuses a file that is not JSON with one line', async () => {
    const file = join(root, 'not-json.json');
    writeFileSync(file, '{ nope');
    expectOneLineError(
      await cli(['fixtures', 'import', file, '--data', freshDir()]),
      1,
      /Cannot read .*not-json\.json/,
    );
  });
});
