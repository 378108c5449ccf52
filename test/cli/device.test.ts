import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url))) throw new Error('Run `npm run build` before the CLI tests.');

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

type Event = { event: string; [field: string]: any };

/** `device simulate --json` in the background: its events as they come, and a way to wait for one. */
function simulator(...args: string[]) {
  const proc: ResultPromise = execa('node', [BIN, 'device', 'simulate', '--json', ...args], { reject: false, env: cleanEnv(), extendEnv: false });
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
          throw new Error(`simulate exited (${result.exitCode}) before a "${name}" event; events: ${JSON.stringify(events)}; stderr: ${stderr}`);
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
    const human = await cli('device', 'register', '--app-version', 'tracker-v1', '--id', 'reg-1', '--token', 'reg-1-token', '--metadata', '{"model":"t1"}', ...url);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain('reg-1');
    expect(human.stdout).toContain('reg-1-token (Inactive)');
    const stored = await rest('GET', '/epr/api/v1/endpoints/reg-1?include=metadata');
    expect(stored.body).toMatchObject({ endpointId: 'reg-1', appVersion: { name: 'tracker-v1' }, metadata: { model: 't1' } });

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

  it('simulate --rules answers a command issued with `call`, per the rule and its template; SIGINT stops it cleanly', async () => {
    const rules = await rulesFile({
      commands: {
        setTemp: { statusCode: 200, reasonPhrase: 'Set', payload: { setpoint: '{{payload.value}}', note: 'set to {{payload.value}} on {{token}}' } },
        fail: { statusCode: 500, reasonPhrase: 'Heater broken' },
      },
      default: { statusCode: 404, reasonPhrase: 'Unknown command' },
    });
    const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--rules', rules, ...url);
    const connected = await sim.next('connected');
    expect(connected).toMatchObject({ token: 'meter-001-token', appVersion: 'smart-meter-v1', mqttUrl: emulator.mqttUrl });

    const called = await cli('call', 'POST', '/endpoints/meter-001/commands/setTemp?waitTimeout=20', '--data', '{"value":21.5}', ...url);
    expect(called.exitCode).toBe(0);
    expect(JSON.parse(called.stdout)).toEqual({ setpoint: 21.5, note: 'set to 21.5 on meter-001-token' });

    const command = await sim.next('command', (e) => e.commandType === 'setTemp');
    expect(command).toMatchObject({ token: 'meter-001-token', payload: { value: 21.5 }, commandId: expect.any(Number) });
    const answered = await sim.next('answered', (e) => e.commandType === 'setTemp');
    expect(answered).toMatchObject({ commandId: command.commandId, statusCode: 200, reasonPhrase: 'Set', payload: { setpoint: 21.5 } });
    expect(typeof answered.time).toBe('string');

    // The device's status code and reason are recorded on the command; an unnamed type gets the default rule.
    const failed = await rest('POST', '/cex/api/v1/endpoints/meter-001/commands/fail?waitTimeout=20', { body: {} });
    expect(failed.status).toBe(200);
    const other = await rest('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=20', { body: {} });
    expect(other.status).toBe(200);
    const rebootAnswer = await sim.next('answered', (e) => e.commandType === 'reboot');
    expect(rebootAnswer).toMatchObject({ statusCode: 404, reasonPhrase: 'Unknown command' });
    const failAnswer = await sim.next('answered', (e) => e.commandType === 'fail');
    const record = await rest('GET', `/cex/api/v1/endpoints/meter-001/commands/fail/${failAnswer.commandId}`);
    expect(record.body).toMatchObject({ statusCode: 500, reasonPhrase: 'Heater broken' });

    const result = await sim.interrupt();
    expect(result.exitCode).toBe(0);
    expect(sim.events.at(-1)).toMatchObject({ event: 'stopped', devices: 1, answered: 3 });
  });

  it('simulate answers 200 with an echo by default; --register --fleet with patterns; --metadata lands in the register', async () => {
    const sim = simulator('--app-version', 'tracker-v1', '--register', '--fleet', '2', '--token', 'fleet-{n}-token', '--id', 'fleet-{nn}', '--metadata', '{"sim":true}', ...url);
    const registered = [await sim.next('registered', (e) => e.endpointId === 'fleet-01'), await sim.next('registered', (e) => e.endpointId === 'fleet-02')];
    expect(registered.map((e) => e.token)).toEqual(['fleet-1-token', 'fleet-2-token']);
    await sim.next('connected', (e) => e.token === 'fleet-2-token');
    await sim.next('metadata', (e) => e.token === 'fleet-2-token');

    const echoed = await rest('POST', '/cex/api/v1/endpoints/fleet-02/commands/locate?waitTimeout=20', { body: { precise: true, n: [1, 2] } });
    expect(echoed.status).toBe(200);
    expect(echoed.body).toEqual({ precise: true, n: [1, 2] });
    const endpoint = await rest('GET', '/epr/api/v1/endpoints/fleet-01?include=metadata');
    expect(endpoint.body.metadata).toEqual({ sim: true });

    expect((await sim.interrupt()).exitCode).toBe(0);
    expect(sim.events.filter((e) => e.event === 'answered')).toEqual([expect.objectContaining({ token: 'fleet-2-token', commandType: 'locate', statusCode: 200 })]);
  });

  it('answers commands left outstanding for the types its rules name, and an "ignore" rule leaves the caller with 202', async () => {
    const before = await rest('POST', '/cex/api/v1/endpoints/meter-002/commands/calibrate?waitTimeout=0', { body: { level: 3 } });
    expect(before.status).toBe(202);
    const rules = await rulesFile({ commands: { calibrate: { payload: { calibrated: '{{payload.level}}' } }, slow: { ignore: true } } });
    const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-002-token', '--rules', rules, ...url);
    const answered = await sim.next('answered', (e) => e.commandType === 'calibrate');
    expect(answered.payload).toEqual({ calibrated: 3 });
    const record = await rest('GET', new URL(before.headers.get('location')!).pathname);
    expect(record.body).toMatchObject({ status: 'EXECUTED', responsePayload: { calibrated: 3 } });

    const called = await cli('call', 'POST', '/endpoints/meter-002/commands/slow?waitTimeout=1', '-d', '{}', ...url);
    expect(called.exitCode).toBe(0);
    expect(called.stderr).toContain('202 Accepted');
    await sim.next('ignored', (e) => e.commandType === 'slow');
    expect((await sim.interrupt()).exitCode).toBe(0);
  });

  it('--interactive asks on stderr what to answer, one command at a time', async () => {
    const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-003-token', '--interactive', ...url);
    await sim.next('connected');
    const call = rest('POST', '/cex/api/v1/endpoints/meter-003/commands/ping?waitTimeout=30', { body: { x: 1 } });
    await sim.next('command');
    const prompted = async (text: string) => {
      while (!sim.stderr().includes(text)) await new Promise((r) => setTimeout(r, 20));
    };
    await prompted('Answer?');
    sim.proc.stdin!.write('\u001b[B'); // down: another status code and payload
    sim.proc.stdin!.write('\r');
    await prompted('Status code');
    sim.proc.stdin!.write('201\r');
    await prompted('Reason phrase');
    sim.proc.stdin!.write('Made\r');
    await prompted('Response payload');
    sim.proc.stdin!.write('{"y":2}\r');
    const response = await call;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ y: 2 });
    expect(await sim.next('answered')).toMatchObject({ statusCode: 201, reasonPhrase: 'Made', payload: { y: 2 } });
    expect((await sim.interrupt()).exitCode).toBe(0);
  });

  it('a rules file that does not validate is a usage error (exit 2) naming every problem', async () => {
    const rules = await rulesFile({ commands: { reboot: { statusCode: '200', dely: 5 }, 'bad-type': {} }, default: { delayMs: -1 } });
    const result = await cli('device', 'simulate', '--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--rules', rules, ...url);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('/commands/reboot/statusCode: must be integer');
    expect(result.stderr).toContain('unknown field "dely"');
    expect(result.stderr).toContain('command type "bad-type" is not alphanumeric');
    expect(result.stderr).toContain('/default/delayMs: must be >= 0');
    const notJson = await cli('device', 'simulate', '--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--rules', await rulesFile('{'), ...url);
    expect(notJson.exitCode).toBe(2);
    const telemetry = await cli('device', 'simulate', '--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--telemetry', 'temp=30..20', ...url);
    expect(telemetry.exitCode).toBe(2);
    const fleet = await cli('device', 'simulate', '--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--fleet', '3', ...url);
    expect(fleet.exitCode).toBe(2);
    expect(fleet.stderr).toContain('{nnn}');
  });

  it('exits 1 with an error event when it cannot connect, or the token belongs to another application version', async () => {
    const refused = await cli('device', 'simulate', '--json', '--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--mqtt-url', 'mqtt://127.0.0.1:9');
    expect(refused.exitCode).toBe(1);
    expect(JSON.parse(refused.stdout.trim().split('\n')[0])).toMatchObject({ event: 'error', token: 'meter-001-token', message: expect.stringContaining('Cannot connect') });

    const wrongVersion = await cli('device', 'simulate', '--json', '--app-version', 'smart-meter-v1', '--token', 'meter-004-token', ...url);
    expect(wrongVersion.exitCode).toBe(1);
    expect(JSON.parse(wrongVersion.stdout.trim().split('\n')[0])).toMatchObject({ event: 'error', message: expect.stringContaining('smart-meter-v2') });
  });

  it('reports a telemetry sample, or a rejected one once (until dcx exists)', async () => {
    const sim = simulator('--app-version', 'tracker-v1', '--token', 'tracker-001-token', '--telemetry', 'lat=52.0..52.6,state=on|off,n=seq', '--interval', '50', ...url);
    await sim.next('connected');
    const first = await Promise.race([sim.next('telemetry'), sim.next('error')]);
    if (first.event === 'telemetry') {
      expect(first.sample).toMatchObject({ n: 1, timestamp: expect.any(Number), state: expect.stringMatching(/^(on|off)$/) });
      expect(first.sample.lat).toBeGreaterThanOrEqual(52);
    } else {
      expect(first.message).toMatch(/telemetry rejected.*dcx/);
      // Several more samples go out meanwhile; the same failure is not reported again.
      await new Promise((r) => setTimeout(r, 300));
      expect(sim.events.filter((e) => e.event === 'error')).toHaveLength(1);
    }
    expect((await sim.interrupt()).exitCode).toBe(0);
  });
});

describe('platform-emu device against an emulator with --auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on', adminToken: ADMIN_TOKEN });

  it('fetches a test token for its REST calls unless --access-token is given', async () => {
    const registered = await cli('device', 'register', '--app-version', 'tracker-v1', '--id', 'authed-1', '--json', '--url', emulator.url);
    expect(registered.exitCode).toBe(0);
    expect(JSON.parse(registered.stdout).endpointId).toBe('authed-1');
    const badToken = await cli('device', 'register', '--app-version', 'tracker-v1', '--access-token', 'not-a-jwt', '--url', emulator.url);
    expect(badToken.exitCode).toBe(1);
    expect(badToken.stderr).toContain('401');
  });
});

describe('platform-emu device simulate against `platform-emu start`', () => {
  it('finds the emulator and its MQTT port through the data directory, and exits 1 when the emulator goes away', async () => {
    const data = await mkdtemp(join(tmpdir(), 'device-start-'));
    const server = execa('node', [BIN, 'start', '--port', '0', '--mqtt-port', '0', '--data', data, '--quiet'], { reject: false, env: cleanEnv(), extendEnv: false });
    await new Promise<void>((resolve) => server.stdout!.once('data', () => resolve()));

    const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--data', data);
    await sim.next('connected');
    const called = await cli('call', 'POST', '/endpoints/meter-001/commands/reboot?waitTimeout=20', '-d', '{"in":5}', '--data-dir', data);
    expect(called.exitCode).toBe(0);
    expect(JSON.parse(called.stdout)).toEqual({ in: 5 });

    server.kill('SIGINT');
    expect((await server).exitCode).toBe(0);
    const result = await sim.proc;
    expect(result.exitCode).toBe(1);
    expect(sim.events.find((e) => e.event === 'error')?.message).toContain('lost');
  });
});
