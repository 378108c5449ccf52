import { execa, type ResultPromise } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, cli, simulateArgs, type Event } from '../helpers/device-cli.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

if (!existsSync(new URL('../../dist/cli/device/fleet-worker.js', import.meta.url)))
  throw new Error('Run `npm run build` before the CLI tests.');

/** `device simulate` in the background: its stdout lines (parsed when `json`), and a way to wait for one. */
function simulator(args: string[], json = true) {
  const proc: ResultPromise = execa('node', [BIN, 'device', 'simulate', ...(json ? ['--json'] : []), ...args], {
    reject: false,
    env: cleanEnv(),
    extendEnv: false,
  });
  const lines: string[] = [];
  let waiters: Array<{ match: (line: string) => boolean; resolve: () => void }> = [];
  let buffered = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    for (const line of complete.filter(Boolean)) {
      lines.push(line);
      waiters = waiters.filter((w) => !(w.match(line) && (w.resolve(), true)));
    }
  });
  const exited = proc.then((result) => result);
  const events = () => lines.map((line) => JSON.parse(line) as Event);
  /** Resolves once `count` lines match (already printed or still to come); fails if the process ends first. */
  const until = (match: (line: string) => boolean, count = 1): Promise<void> =>
    Promise.race([
      new Promise<void>((resolve) => {
        let seen = lines.filter(match).length;
        if (seen >= count) return resolve();
        waiters.push({ match: (line) => match(line) && ++seen >= count, resolve });
      }),
      exited.then((result) => {
        throw new Error(`simulate exited (${result.exitCode}); stdout: ${lines.join('\n')}; stderr: ${result.stderr}`);
      }),
    ]);
  return { proc, lines, events, until, exited };
}

const event = (name: string, token?: string) => (line: string) => {
  const parsed = JSON.parse(line) as Event;
  return parsed.event === name && (token === undefined || parsed.token === token);
};

const threadsOf = (pid: number) => readdirSync(`/proc/${pid}/task`).length;

/** Resolves once `check` holds, asking again after each answer; fails after `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('platform-emu device simulate --fleet over worker threads', async () => {
  const emulator = await startTestEmulator();
  const rest = api(emulator);
  const url = ['--url', emulator.url];
  const online = async () => (await rest('GET', '/_emu/health')).body.mqtt.onlineEndpoints as number;

  it('--workers 2: devices register and connect, samples land, commands are answered, Ctrl-C stops all', async () => {
    const tokens = [1, 2, 3, 4].map((n) => `wk-${n}-token`);
    const fleet = simulator([
      '--app-version',
      'smart-meter-v1',
      '--register',
      '--fleet',
      '4',
      '--workers',
      '2',
      '--token',
      'wk-{n}-token',
      '--id',
      'wk-{n}',
      '--no-config',
      '--no-software',
      '--telemetry',
      'temperature=18..26',
      '--interval',
      '200',
      ...url,
    ]);
    // The same kind of process in one thread, for its thread count: each worker is one thread more.
    const single = simulator([
      '--app-version',
      'smart-meter-v1',
      '--fleet',
      '3',
      '--token',
      'meter-{nnn}-token',
      '--no-config',
      '--no-software',
      ...url,
    ]);
    await fleet.until(event('connected'), 4);
    await single.until(event('connected'), 3);
    expect(threadsOf(fleet.proc.pid!) - threadsOf(single.proc.pid!)).toBeGreaterThanOrEqual(2);
    single.proc.kill('SIGINT');

    const registered = fleet.events().filter((e) => e.event === 'registered');
    expect(registered.map((e) => e.endpointId).sort()).toEqual(['wk-1', 'wk-2', 'wk-3', 'wk-4']);
    // Nothing starts before every part of the fleet is connected.
    const firstConnected = fleet.lines.findIndex(event('connected'));
    expect(fleet.lines.slice(firstConnected).some(event('registered'))).toBe(false);

    for (const token of tokens) await fleet.until(event('telemetry', token));
    for (const [i, token] of tokens.entries()) {
      const sample = fleet.events().find((e) => e.event === 'telemetry' && e.token === token)!;
      const last = await rest(
        'GET',
        `/epts/api/v1/applications/smart-meter/time-series/last?endpointId=wk-${i + 1}&timeSeriesName=temperature`,
      );
      expect(last.status).toBe(200);
      expect(Date.parse(last.body[`wk-${i + 1}`].temperature[0].timestamp)).toBeGreaterThanOrEqual(
        sample.sample.timestamp,
      );
    }

    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        rest('POST', `/cex/api/v1/endpoints/wk-${n}/commands/ping?waitTimeout=20`, { body: { n } }),
      ),
    );
    expect(answers.map((a) => [a.status, a.body])).toEqual([1, 2, 3, 4].map((n) => [200, { n }]));
    for (const token of tokens) await fleet.until(event('answered', token));
    expect(await online()).toBeGreaterThanOrEqual(4);

    fleet.proc.kill('SIGINT');
    const result = await fleet.exited;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const events = fleet.events();
    expect(events.at(-1)).toMatchObject({ event: 'stopped', devices: 4, answered: 4 });
    expect(events.filter((e) => e.event === 'stopped')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'error')).toEqual([]);
    expect((await single.exited).exitCode).toBe(0);
    // Every device of both processes disconnected on the way out: nothing left connected behind them.
    await eventually(async () => (await online()) === 0, 20_000, 'every device to go offline');
  }, 120_000);

  it('a device that cannot connect in one worker stops the whole fleet before any device starts: exit 1', async () => {
    const fleet = simulator(
      [
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-001-token,meter-002-token,no-such-token',
        '--workers',
        '3',
        '--no-config',
        '--no-software',
        ...url,
      ],
      false,
    );
    const result = await fleet.exited;
    expect(result.exitCode).toBe(1);
    expect(fleet.lines).toHaveLength(1);
    expect(fleet.lines[0]).toMatch(/no-such-token {2}error The broker at mqtt:\/\/.* refused the token/);
    await eventually(async () => (await online()) === 0, 20_000, 'the connected devices to be closed');
  }, 60_000);

  it('--workers is checked before anything connects: more workers than devices, or none', async () => {
    const tooMany = await cli(...simulateArgs('smart-meter-v1', 'meter-001-token', '--workers', '2'));
    expect(tooMany.exitCode).toBe(2);
    expect(tooMany.stderr).toContain('--workers 2 is more than the 1 device to simulate');
    const zero = await cli(...simulateArgs('smart-meter-v1', 'meter-001-token', '--workers', '0'));
    expect(zero.exitCode).toBe(2);
  }, 60_000);
});
