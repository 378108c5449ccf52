import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { hasScript, inTerminal } from '../helpers/terminal.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url)))
  throw new Error('Run `npm run build` before the CLI tests.');

/** The control-plane admin token of the `--auth on` emulator below, given to the CLI as a user would. */
const ADMIN_TOKEN = 'device-test-admin-token';

const cleanEnv = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_'))),
  PLATFORM_EMU_ADMIN_TOKEN: ADMIN_TOKEN,
  NO_COLOR: '1',
});

function cli(...args: string[]) {
  return execa('node', [BIN, ...args], { reject: false, env: cleanEnv(), extendEnv: false });
}

const IMPORTS_LOG_HOOK = fileURLToPath(new URL('../helpers/imports-log.mjs', import.meta.url));

/** The packages a CLI run imports (names under node_modules). */
async function packagesImported(...args: string[]): Promise<Set<string>> {
  const log = join(await mkdtemp(join(tmpdir(), 'imports-')), 'imports.log');
  await writeFile(log, '');
  await execa('node', ['--import', IMPORTS_LOG_HOOK, BIN, ...args], {
    reject: false,
    env: { ...cleanEnv(), IMPORTS_LOG: log },
    extendEnv: false,
  });
  const urls = (await readFile(log, 'utf8')).split('\n');
  return new Set(
    urls
      .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
      .filter((name): name is string => Boolean(name)),
  );
}

type Event = { event: string; [field: string]: any };

/** `device simulate --json` in the background: its events as they come, and a way to wait for one. */
function simulator(...args: string[]) {
  const proc: ResultPromise = execa('node', [BIN, 'device', 'simulate', '--json', ...args], {
    reject: false,
    env: cleanEnv(),
    extendEnv: false,
  });
  const events: Event[] = [];
  let stderr = '';
  let waiters: Array<{ match: (e: Event) => boolean; resolve: (e: Event) => void }> = [];
  let buffered = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      const event = JSON.parse(line) as Event;
      events.push(event);
      waiters = waiters.filter((w) => !(w.match(event) && (w.resolve(event), true)));
    }
  });
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = proc.then((result) => result);
  return {
    proc,
    events,
    stderr: () => stderr,
    /** The first event (already seen or still to come) that matches; fails if the process ends first. */
    next(name: string, match: (e: Event) => boolean = () => true): Promise<Event> {
      const test = (e: Event) => e.event === name && match(e);
      const seen = events.find(test);
      if (seen) return Promise.resolve(seen);
      return Promise.race([
        new Promise<Event>((resolve) => waiters.push({ match: test, resolve })),
        exited.then((result) => {
          throw new Error(
            `simulate exited (${result.exitCode}) before a "${name}" event; events: ` +
              `${JSON.stringify(events)}; stderr: ${stderr}`,
          );
        }),
      ]);
    },
    async interrupt() {
      proc.kill('SIGINT');
      return exited;
    },
  };
}

async function rulesFile(rules: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'device-test-'));
  const file = join(dir, 'rules.json');
  await writeFile(file, typeof rules === 'string' ? rules : JSON.stringify(rules));
  return file;
}

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

  it(
    'simulate --rules answers a command issued with `call` as the rules file says; SIGINT stops it ' + 'cleanly',
    async () => {
      const rules = await rulesFile({
        commands: { setTemp: { reasonPhrase: 'Set', payload: { setpoint: '{{payload.value}}' } } },
      });
      const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--rules', rules, ...url);
      const connected = await sim.next('connected');
      expect(connected).toMatchObject({
        token: 'meter-001-token',
        appVersion: 'smart-meter-v1',
        mqttUrl: emulator.mqttUrl,
      });

      const called = await cli(
        'call',
        'POST',
        '/endpoints/meter-001/commands/setTemp?waitTimeout=20',
        '--data',
        '{"value":21.5}',
        ...url,
      );
      expect(called.exitCode).toBe(0);
      expect(JSON.parse(called.stdout)).toEqual({ setpoint: 21.5 });
      const command = await sim.next('command', (e) => e.commandType === 'setTemp');
      expect(command).toMatchObject({
        token: 'meter-001-token',
        payload: { value: 21.5 },
        commandId: expect.any(Number),
      });
      const answered = await sim.next('answered', (e) => e.commandType === 'setTemp');
      expect(answered).toMatchObject({
        commandId: command.commandId,
        statusCode: 200,
        reasonPhrase: 'Set',
        payload: { setpoint: 21.5 },
      });
      expect(typeof answered.time).toBe('string');

      const result = await sim.interrupt();
      expect(result.exitCode).toBe(0);
      expect(sim.events.at(-1)).toMatchObject({ event: 'stopped', devices: 1, answered: 1 });
    },
  );

  it('simulate --register --fleet expands the token and id patterns; --metadata lands in the register', async () => {
    const sim = simulator(
      '--app-version',
      'tracker-v1',
      '--register',
      '--fleet',
      '2',
      '--token',
      'fleet-{n}-token',
      '--id',
      'fleet-{nn}',
      '--metadata',
      '{"sim":true}',
      ...url,
    );
    const registered = [
      await sim.next('registered', (e) => e.endpointId === 'fleet-01'),
      await sim.next('registered', (e) => e.endpointId === 'fleet-02'),
    ];
    expect(registered.map((e) => e.token)).toEqual(['fleet-1-token', 'fleet-2-token']);
    await sim.next('metadata', (e) => e.token === 'fleet-2-token');
    // The software the devices are offered and apply adds `softwareVersion`, perhaps later.
    expect((await rest('GET', '/epr/api/v1/endpoints/fleet-01?include=metadata')).body.metadata).toMatchObject({
      sim: true,
    });

    const echoed = await rest('POST', '/cex/api/v1/endpoints/fleet-02/commands/locate?waitTimeout=20', {
      body: { precise: true },
    });
    expect(echoed.body).toEqual({ precise: true });
    // The caller has its answer once the emulator stored the result; the device counts it when the server acknowledges.
    await sim.next('answered', (e) => e.token === 'fleet-2-token');
    expect((await sim.interrupt()).exitCode).toBe(0);
    expect(sim.events.at(-1)).toMatchObject({ event: 'stopped', devices: 2, answered: 1 });
  });

  it(
    'simulate shows the configuration and software it applies as events; --reject-config and --no-software ' +
      'change that',
    async () => {
      const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-002-token', ...url);
      await sim.next('software', (e) => e.version === '');
      const offers = sim.events
        .filter((e) => e.event.startsWith('config') || e.event.startsWith('software'))
        .map(({ time: _time, token: _token, ...e }) => e);
      expect(offers).toEqual([
        { event: 'config', configId: expect.any(String), config: { reportingIntervalSeconds: 900, tariff: 'flat' } },
        { event: 'config-applied', configId: offers[0].configId },
        { event: 'software', version: '1.0.0', specification: expect.any(Object) },
        { event: 'software-applied', version: '1.0.0' },
        { event: 'software', version: '1.1.0', specification: expect.any(Object) },
        { event: 'software-applied', version: '1.1.0' },
        { event: 'software', version: '', specification: null },
      ]);
      expect((await sim.interrupt()).exitCode).toBe(0);

      const rejecting = simulator(
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-003-token',
        '--reject-config',
        '--no-software',
        ...url,
      );
      expect(await rejecting.next('config-rejected')).toMatchObject({
        statusCode: 400,
        reasonPhrase: 'Rejected by the simulated device.',
      });
      // A command answered after start: no software was asked for.
      expect(
        (await rest('POST', '/cex/api/v1/endpoints/meter-003/commands/ping?waitTimeout=20', { body: {} })).status,
      ).toBe(200);
      await rejecting.next('answered');
      expect(rejecting.events.map((e) => e.event)).toEqual([
        'connected',
        'config',
        'config-rejected',
        'command',
        'answered',
      ]);
      expect((await rejecting.interrupt()).exitCode).toBe(0);

      const both = await cli(
        'device',
        'simulate',
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-003-token',
        '--no-config',
        '--reject-config',
        ...url,
      );
      expect(both.exitCode).toBe(2);
      expect(both.stderr).toContain("'--reject-config' cannot be used with option '--no-config'");
    },
  );

  it('simulate --config-name observes and applies a named configuration beside the default one', async () => {
    const put = await rest('PUT', '/ecr/api/v1/endpoints/tracker-002/app-versions/tracker-v1?configName=network', {
      body: { apn: 'internet' },
    });
    expect(put.status).toBe(201);
    const configId = put.headers.get('etag')!.replace(/"/g, '');
    const sim = simulator(
      '--app-version',
      'tracker-v1',
      '--token',
      'tracker-002-token',
      '--config-name',
      'network',
      '--no-software',
      ...url,
    );
    expect(await sim.next('config-applied', (e) => e.configName === 'network')).toMatchObject({ configId });
    await sim.next('config-applied', (e) => e.configName === undefined);
    expect((await sim.interrupt()).exitCode).toBe(0);
  });

  it('simulate --upload uploads the file as a blob of the endpoint: listed, and downloaded byte for byte', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'device-upload-')), 'photo.jpg');
    const bytes = randomBytes(70_000);
    await writeFile(file, bytes);
    const sim = simulator(
      '--app-version',
      'tracker-v1',
      '--token',
      'tracker-002-token',
      '--upload',
      file,
      '--no-config',
      '--no-software',
      ...url,
    );
    const uploaded = await sim.next('uploaded');
    expect(uploaded).toMatchObject({
      token: 'tracker-002-token',
      blobId: expect.any(String),
      name: 'photo.jpg',
      size: 70_000,
      url: expect.any(String),
    });
    const listed = await rest('GET', '/bcx/api/v1/applications/tracker/binary-data/list?endpointId=tracker-002');
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: uploaded.blobId,
        endpointId: 'tracker-002',
        name: 'photo.jpg',
        size: 70_000,
        url: uploaded.url,
      }),
    ]);
    const download = await fetch(uploaded.url);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await sim.interrupt()).exitCode).toBe(0);

    const missing = await cli(
      'device',
      'simulate',
      '--app-version',
      'tracker-v1',
      '--token',
      'tracker-002-token',
      '--upload',
      `${file}.missing`,
      ...url,
    );
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(
      `platform-emu: Cannot read the file to upload, ${file}.missing: ENOENT: no such file or directory, open ` +
        `'${file}.missing'`,
    );
  });

  it('--interactive without a terminal is a usage error (exit 2), not a prompt nobody can answer', async () => {
    const result = await cli(
      'device',
      'simulate',
      '--app-version',
      'smart-meter-v1',
      '--token',
      'meter-003-token',
      '--interactive',
      ...url,
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'platform-emu: --interactive needs a terminal (stdin is not a TTY); answer by --rules when running unattended.',
    );
    expect(result.stdout).toBe('');
  });

  it.skipIf(!hasScript)(
    '--interactive in a terminal asks what to answer, one command at a time; Ctrl-C stops it',
    async () => {
      const term = inTerminal(
        [
          'device',
          'simulate',
          '--app-version',
          'smart-meter-v1',
          '--token',
          'meter-003-token',
          '--interactive',
          ...url,
        ],
        cleanEnv(),
      );
      await term.shown('waiting for commands');
      const call = rest('POST', '/cex/api/v1/endpoints/meter-003/commands/ping?waitTimeout=30', { body: { x: 1 } });
      await term.shown('Answer?');
      term.type('\u001b[B\r'); // down: another status code and payload
      await term.shown('Status code');
      term.type('201\r');
      await term.shown('Reason phrase');
      term.type('Made\r');
      await term.shown('Response payload');
      term.type('{"y":2}\r');
      const response = await call;
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ y: 2 });
      await term.shown('answered ping');
      term.type('\u0003');
      expect((await term.exited).exitCode).toBe(0);
      expect(term.screen()).toContain('stopped 1 device; 1 command answered');
    },
  );

  it('--help, device --help and device register load neither the MQTT client nor the prompts', async () => {
    for (const args of [
      ['--help'],
      ['device', 'simulate', '--help'],
      ['device', 'register', '--app-version', 'tracker-v1', ...url],
    ]) {
      const imported = await packagesImported(...args);
      expect(imported.has('commander'), args.join(' ')).toBe(true);
      expect(
        [...imported].filter((name) => ['mqtt', 'inquirer', 'ajv'].includes(name)),
        args.join(' '),
      ).toEqual([]);
    }
    // The check itself sees them when a simulation runs.
    const simulating = await packagesImported(
      'device',
      'simulate',
      '--app-version',
      'smart-meter-v1',
      '--token',
      'meter-001-token',
      '--mqtt-url',
      'mqtt://127.0.0.1:9',
    );
    expect(simulating.has('mqtt')).toBe(true);
  });

  it(
    'a rules file that does not validate, a bad --telemetry spec or a fleet without patterns is a usage error ' +
      '(exit 2)',
    async () => {
      const rules = await rulesFile({ commands: { reboot: { statusCode: '200', dely: 5 } } });
      const result = await cli(
        'device',
        'simulate',
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-001-token',
        '--rules',
        rules,
        ...url,
      );
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`The rules in ${rules} are not valid:`);
      expect(result.stderr).toContain('/commands/reboot/statusCode: must be integer');
      expect(result.stderr).toContain('unknown field "dely"');
      const notJson = await cli(
        'device',
        'simulate',
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-001-token',
        '--rules',
        await rulesFile('{'),
        ...url,
      );
      expect(notJson.exitCode).toBe(2);
      const telemetry = await cli(
        'device',
        'simulate',
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-001-token',
        '--telemetry',
        'temp=30..20',
        ...url,
      );
      expect(telemetry.exitCode).toBe(2);
      expect(telemetry.stderr).toContain('goes down');
      const fleet = await cli(
        'device',
        'simulate',
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-001-token',
        '--fleet',
        '3',
        ...url,
      );
      expect(fleet.exitCode).toBe(2);
      expect(fleet.stderr).toContain('{nnn}');
    },
  );

  it(
    'exits 1 with an error event when it cannot connect, or the token belongs to another application ' + 'version',
    async () => {
      const refused = await cli(
        'device',
        'simulate',
        '--json',
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-001-token',
        '--mqtt-url',
        'mqtt://127.0.0.1:9',
      );
      expect(refused.exitCode).toBe(1);
      expect(JSON.parse(refused.stdout.trim().split('\n')[0])).toMatchObject({
        event: 'error',
        token: 'meter-001-token',
        message: expect.stringContaining('Cannot connect'),
      });

      const wrongVersion = await cli(
        'device',
        'simulate',
        '--json',
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-004-token',
        ...url,
      );
      expect(wrongVersion.exitCode).toBe(1);
      expect(JSON.parse(wrongVersion.stdout.trim().split('\n')[0])).toMatchObject({
        event: 'error',
        message: expect.stringContaining('smart-meter-v2'),
      });
    },
  );
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
});

describe('platform-emu device simulate against a broker with --mqtt-auth basic', async () => {
  const emulator = await startTestEmulator({ mqttAuth: 'basic' });
  const args = [
    '--app-version',
    'smart-meter-v1',
    '--token',
    'meter-001-token',
    '--no-config',
    '--no-software',
    '--url',
    emulator.url,
  ];

  it('--username and --password log in; a refused login is an error event and exit 1', async () => {
    const sim = simulator(...args, '--username', 'meter-001', '--password', 'meter-001-password');
    await sim.next('connected');
    expect(
      (
        await api(emulator)('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=20', {
          body: { n: 1 },
        })
      ).body,
    ).toEqual({ n: 1 });
    expect((await sim.interrupt()).exitCode).toBe(0);

    const wrong = await cli('device', 'simulate', '--json', ...args, '--username', 'meter-001', '--password', 'wrong');
    expect(wrong.exitCode).toBe(1);
    expect(JSON.parse(wrong.stdout.trim().split('\n')[0])).toMatchObject({
      event: 'error',
      token: 'meter-001-token',
      message:
        `The broker at ${emulator.mqttUrl} refused the connection (CONNACK 4): bad user name or password (user ` +
        `name "meter-001").`,
    });
  });
});

describe('platform-emu device simulate against `platform-emu start`', () => {
  it(
    'finds the emulator and its MQTT port through the data directory, and exits 1 when the emulator goes ' + 'away',
    async () => {
      const data = await mkdtemp(join(tmpdir(), 'device-start-'));
      const server = execa('node', [BIN, 'start', '--port', '0', '--mqtt-port', '0', '--data', data, '--quiet'], {
        reject: false,
        env: cleanEnv(),
        extendEnv: false,
      });
      await new Promise<void>((resolve) => server.stdout!.once('data', () => resolve()));

      const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--data', data);
      await sim.next('connected');
      const called = await cli(
        'call',
        'POST',
        '/endpoints/meter-001/commands/reboot?waitTimeout=20',
        '-d',
        '{"in":5}',
        '--data-dir',
        data,
      );
      expect(called.exitCode).toBe(0);
      expect(JSON.parse(called.stdout)).toEqual({ in: 5 });

      server.kill('SIGINT');
      expect((await server).exitCode).toBe(0);
      const result = await sim.proc;
      expect(result.exitCode).toBe(1);
      expect(sim.events.find((e) => e.event === 'error')?.message).toContain('lost');
    },
  );
});
