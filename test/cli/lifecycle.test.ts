import { execa } from 'execa';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cli } from '../store/emulator-process.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-lifecycle-'));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);
/** Data directories of detached emulators: each is stopped after the tests, whatever happened. */
const detached: string[] = [];

beforeAll(assertBuilt);
afterAll(async () => {
  await Promise.all(detached.map((dir) => cli(['stop', '--data-dir', dir])));
  rmSync(root, { recursive: true, force: true });
});

const lockIn = (dir: string) => JSON.parse(readFileSync(join(dir, 'emulator.lock'), 'utf8'));

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function detach(dir: string, ...args: string[]) {
  detached.push(dir);
  const result = await cli([
    'start',
    '--detach',
    '--port',
    '0',
    '--mqtt-port',
    '0',
    '--data-dir',
    dir,
    '--json',
    ...args,
  ]);
  expect(result.exitCode, String(result.stderr)).toBe(0);
  return JSON.parse(String(result.stdout));
}

async function register(url: string, endpointId: string, token?: string): Promise<number> {
  const response = await fetch(`${url}/epr/api/v1/endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ endpointId, appVersion: { name: 'tracker-v1' } }),
  });
  return response.status;
}

describe('start --detach, status, wait and stop', () => {
  it(
    'runs in the background until stop, which returns once the state is saved and the directory ' + 'released',
    async () => {
      const dir = freshDir();
      const info = await detach(dir);
      expect(info).toMatchObject({
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        mqttUrl: expect.stringMatching(/^mqtt:/),
        dataDir: dir,
        logFile: join(dir, 'emulator.log'),
      });
      expect(info.port).toBe(Number(new URL(info.url).port));
      expect(isRunning(info.pid)).toBe(true);
      expect(lockIn(dir)).toMatchObject({ pid: info.pid, url: info.url });
      expect(readFileSync(info.logFile, 'utf8')).toContain(info.url);

      const wait = await cli(['wait', '--data-dir', dir]);
      expect([wait.exitCode, String(wait.stdout).trim()]).toEqual([0, info.url]);
      expect(await register(info.url, 'kept-after-stop')).toBe(201);
      const status = await cli(['status', '--data-dir', dir, '--json']);
      expect(status.exitCode).toBe(0);
      const shown = JSON.parse(String(status.stdout));
      expect(shown).toMatchObject({
        running: true,
        pid: info.pid,
        url: info.url,
        mqttUrl: info.mqttUrl,
        port: info.port,
        mqttPort: info.mqttPort,
        dataDir: dir,
        faults: [],
      });
      expect(shown.uptimeSeconds).toBeGreaterThanOrEqual(0);
      expect(shown.counts).toMatchObject({ epr: expect.any(Number), cex: 0 });
      expect(shown.counts.epr).toBeGreaterThan(10);
      expect(String((await cli(['status', '--data-dir', dir])).stdout)).toContain(`running (pid ${info.pid}`);

      const stop = await cli(['stop', '--data-dir', dir]);
      expect(stop.exitCode, String(stop.stderr)).toBe(0);
      expect(existsSync(join(dir, 'emulator.lock'))).toBe(false);
      expect(isRunning(info.pid)).toBe(false);
      expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).collections.endpoints).toHaveProperty(
        'kept-after-stop',
      );

      const after = await cli(['status', '--data-dir', dir, '--json']);
      expect([after.exitCode, JSON.parse(String(after.stdout))]).toEqual([3, { running: false }]);
      const again = await cli(['stop', '--data-dir', dir]);
      expect([again.exitCode, String(again.stderr)]).toEqual([0, `No emulator is running on ${dir}.`]);
    },
  );

  it('exits at once with the last lines of its log when the emulator cannot start', async () => {
    const busy: Server = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const port = (busy.address() as { port: number }).port;
    const dir = freshDir();
    detached.push(dir);
    const result = await cli(['start', '--detach', '--port', String(port), '--mqtt-port', '0', '--data-dir', dir]);
    busy.close();
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr)).toMatch(
      new RegExp(
        String.raw`The emulator could not start \(it exited with 1\)\. Last lines of .*emulator\.log:\n.*Port \d+ on ` +
          String.raw`127\.0\.0\.1 is already in use`,
      ),
    );
    expect(existsSync(join(dir, 'emulator.lock'))).toBe(false);
  });

  it(
    'in memory: its lock, admin token (auth on, owner-only) and log in --data-dir, and nothing else ' + 'there',
    async () => {
      const dir = freshDir();
      const info = await detach(dir, '--in-memory', '--auth', 'on');
      expect(info).toMatchObject({ dataDir: null, adminToken: expect.stringMatching(/^ey/) });
      expect(statSync(join(dir, 'emulator.lock')).mode & 0o777).toBe(0o600);
      expect(lockIn(dir)).toMatchObject({ pid: info.pid, url: info.url, adminToken: info.adminToken });

      const admin = await cli(['token', '--admin', '--data-dir', dir]);
      expect(String(admin.stdout).trim()).toBe(info.adminToken);
      const token = String((await cli(['token', '--data-dir', dir])).stdout).trim();
      expect(await register(info.url, 'in-memory-1', token)).toBe(201);

      const second = await cli(['start', '--detach', '--port', '0', '--data-dir', dir, '--in-memory']);
      expect(second.exitCode).toBe(1);
      expect(String(second.stderr)).toContain(`An emulator already runs on ${dir} (pid ${info.pid} at ${info.url})`);

      expect((await cli(['stop', '--data-dir', dir])).exitCode).toBe(0);
      expect(readdirSync(dir)).toEqual(['emulator.log']);
    },
  );

  it('wait gives up after --timeout; status says nothing runs at an address where nothing listens', async () => {
    const wait = await cli(['wait', '--url', 'http://127.0.0.1:9', '--timeout', '1']);
    expect([wait.exitCode, String(wait.stderr).trim()]).toEqual([
      1,
      'platform-emu: No emulator was ready at http://127.0.0.1:9 within 1 s.',
    ]);
    const status = await cli(['status', '--url', 'http://127.0.0.1:9', '--json']);
    expect([status.exitCode, JSON.parse(String(status.stdout))]).toEqual([3, { running: false }]);
  });
});

/** A foreground `start` whose ready line is JSON: resolves once it is printed. */
async function startJson(args: string[]) {
  const child = execa('node', [BIN, 'start', '--port', '0', '--mqtt-port', '0', '--json', ...args], {
    reject: false,
    buffer: false,
    env: { NO_COLOR: '1' },
  });
  let out = '';
  const info = await new Promise<Record<string, any>>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
    });
    child.then((result) => reject(new Error(`exited ${result.exitCode}: ${String(result.stderr ?? '')}`)), reject);
  });
  const stop = async () => {
    child.kill('SIGTERM');
    return (await child).exitCode;
  };
  return { info, stop };
}

describe('start --json, --import, --export-on-exit', () => {
  it(
    'prints one ready line, seeds from an export (--import, or --fixtures) and writes one at a ' + 'clean stop',
    async () => {
      const dir = freshDir();
      mkdirSync(dir);
      const first = join(dir, 'first.json');
      const run1 = await startJson(['--in-memory', '--export-on-exit', first]);
      expect(run1.info).toEqual({
        url: expect.any(String),
        mqttUrl: expect.any(String),
        port: expect.any(Number),
        mqttPort: expect.any(Number),
        mqttsUrl: expect.stringMatching(/^mqtts:\/\//),
        mqttsPort: expect.any(Number),
        pid: expect.any(Number),
        dataDir: null,
      });
      expect(await register(run1.info.url, 'from-run-1')).toBe(201);
      expect(await run1.stop()).toBe(0);
      expect(JSON.parse(readFileSync(first, 'utf8')).collections.endpoints).toHaveProperty('from-run-1');
      // It holds client secrets in clear: readable by its owner only.
      expect((statSync(first).mode & 0o777).toString(8)).toBe('600');

      const second = join(dir, 'second.json');
      const run2 = await startJson([
        '--in-memory',
        '--fixtures',
        'none',
        '--import',
        first,
        '--export-on-exit',
        second,
      ]);
      expect(await register(run2.info.url, 'from-run-2')).toBe(201);
      expect(await run2.stop()).toBe(0);
      expect(Object.keys(JSON.parse(readFileSync(second, 'utf8')).collections.endpoints)).toEqual(
        expect.arrayContaining(['from-run-1', 'from-run-2']),
      );

      const run3 = await startJson(['--data-dir', join(dir, 'state'), '--fixtures', second]);
      const listed = await (await fetch(`${run3.info.url}/epr/api/v1/endpoints?limit=0`)).json();
      expect(listed.content.map((e: { endpointId: string }) => e.endpointId)).toEqual(
        expect.arrayContaining(['from-run-1', 'from-run-2']),
      );
      expect(await run3.stop()).toBe(0);
    },
  );
});

const hasScript = existsSync('/usr/bin/script') || existsSync('/bin/script');

describe('start on a pseudo-terminal of 0x0 (some CI runners, `script`)', () => {
  it.skipIf(!hasScript)('draws no spinner and no colours, gets ready, and stops on SIGTERM', async () => {
    const dir = freshDir();
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !['CI', 'NO_COLOR', 'FORCE_COLOR'].includes(name) && !name.startsWith('PLATFORM_EMU_'),
      ),
    );
    const command =
      `stty rows 0 cols 0; exec node ${JSON.stringify(BIN)} start --port 0 --mqtt-port 0 --data-dir ` +
      `${JSON.stringify(dir)}`;
    const child = execa('script', ['-qfc', command, '/dev/null'], {
      reject: false,
      buffer: false,
      stdin: 'ignore',
      env,
      extendEnv: false,
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Try: curl')) resolve();
      });
      child.then(() => reject(new Error(`script exited before the emulator was ready: ${out.slice(0, 500)}`)), reject);
    });
    process.kill(lockIn(dir).pid, 'SIGTERM');
    await child;
    expect(out).toContain('SIGTERM: finishing requests and saving state');
    expect(out.length).toBeLessThan(5000);
    expect(out).not.toContain('\u001b[');
    expect(existsSync(join(dir, 'emulator.lock'))).toBe(false);
  });
});

describe('exec', () => {
  const probe = join(root, 'probe.mjs');
  writeFileSync(
    probe,
    `const url = process.env.PLATFORM_EMU_URL;
const answer = await fetch(url + '/epr/api/v1/endpoints?limit=1', { headers: { authorization: 'Bearer ' + ` +
      `process.env.PLATFORM_EMU_TOKEN } });
console.log(JSON.stringify({ url, mqttUrl: process.env.PLATFORM_EMU_MQTT_URL, status: answer.status, admin: ` +
      `process.env.PLATFORM_EMU_ADMIN_TOKEN ?? null }));
process.exit(Number(process.argv[2]));
`,
  );

  it(
    'runs the command against an emulator of its own (side by side without clashing) and exits with its ' + 'code',
    async () => {
      const cwd = freshDir();
      mkdirSync(cwd);
      const run = (args: string[]) =>
        execa('node', [BIN, 'exec', ...args], { cwd, reject: false, env: { NO_COLOR: '1' } });
      const [plain, secured, missing] = await Promise.all([
        run(['--', 'node', probe, '7']),
        run(['--auth', 'on', '--', 'node', probe, '0']),
        run(['--quiet', '--', 'no-such-command-at-all']),
      ]);
      const a = JSON.parse(String(plain.stdout));
      const b = JSON.parse(String(secured.stdout));
      expect(plain.exitCode).toBe(7);
      expect(a).toMatchObject({
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        mqttUrl: expect.stringMatching(/^mqtt:\/\/127\.0\.0\.1:\d+$/),
        status: 200,
        admin: null,
      });
      expect(String(plain.stderr)).toContain(`platform-emu: emulator ready at ${a.url}`);
      expect(secured.exitCode).toBe(0);
      expect(b).toMatchObject({ status: 200, admin: expect.stringMatching(/^ey/) });
      expect(b.url).not.toBe(a.url);
      expect(b.mqttUrl).not.toBe(a.mqttUrl);
      expect([missing.exitCode, String(missing.stderr).trim()]).toEqual([
        127,
        'platform-emu exec: cannot run no-such-command-at-all: command not found',
      ]);
      expect(readdirSync(cwd)).toEqual([]);
    },
  );
});
