import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, startProcess, type EmulatorProcess } from '../store/emulator-process.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const ADMIN_TOKEN = 'control-cli-admin-token';

beforeAll(assertBuilt);

/** The CLI in a child process, with no environment that could point it elsewhere. */
function cli(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_')));
  return execa('node', [BIN, ...args], {
    reject: false,
    env: { ...clean, NO_COLOR: '1', ...env },
    extendEnv: false,
    timeout: 20_000,
  });
}

describe('reset, snapshot, clock and faults from the CLI', async () => {
  const emulator = await startTestEmulator({ auth: 'on', adminToken: ADMIN_TOKEN });
  const url = ['--url', emulator.url];
  const admin = { PLATFORM_EMU_ADMIN_TOKEN: ADMIN_TOKEN };
  const run = async (...args: string[]) => {
    const result = await cli([...args, ...url], admin);
    expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    return String(result.stdout);
  };
  const endpoint = (id: string) => api(emulator)('GET', `/epr/api/v1/endpoints/${id}`, { token: emulator.token() });

  // One CLI process per step: each test stays well inside its time on a busy machine. They share the emulator, in
  // order.
  it('snapshots: save, list, restore and delete', async () => {
    await run('snapshot', 'save', 'seeded');
    await api(emulator)('POST', '/epr/api/v1/endpoints', {
      token: emulator.token(),
      body: { appVersion: { name: 'tracker-v1' }, endpointId: 'cli-extra' },
    });
    expect(JSON.parse(await run('snapshot', 'list', '--json')).map((s: { name: string }) => s.name)).toEqual([
      'seeded',
    ]);
    await run('snapshot', 'restore', 'seeded');
    expect((await endpoint('cli-extra')).status).toBe(404);
    await run('snapshot', 'delete', 'seeded');
    expect(await run('snapshot', 'list')).toBe('');
  });

  it('clock: set, advance, show and back to real time', async () => {
    expect(await run('clock', 'set', '2030-01-01T00:00:00Z')).toBe('2030-01-01T00:00:00.000Z  (frozen)');
    expect(JSON.parse(await run('clock', 'advance', 'PT90M', '--json'))).toEqual({
      now: '2030-01-01T01:30:00.000Z',
      mode: 'frozen',
    });
    expect(await run('clock')).toContain('2030-01-01T01:30:00.000Z');
    expect(await run('clock', 'real')).toContain('(real)');
  });

  it('faults: add an HTTP and a device fault, list them, and clear them', async () => {
    const id = (
      await run('faults', 'add', 'http', '--path', '/epr/api/v1/endpoints', '--status', '503', '--count', '1')
    ).trim();
    await run('faults', 'add', 'device', 'meter-001', 'slow', '--latency', '500');
    const listed = JSON.parse(await run('faults', 'list', '--json'));
    expect(listed).toEqual([
      expect.objectContaining({ id, kind: 'http', status: 503, count: 1 }),
      expect.objectContaining({ kind: 'device', endpointId: 'meter-001', mode: 'slow', latencyMs: 500 }),
    ]);
    expect((await endpoint('meter-001')).status).toBe(503);
    await run('faults', 'clear');
    expect(JSON.parse(await run('faults', 'list', '--json'))).toEqual([]);
  });

  it('reset: to an empty platform and back to the fixtures', async () => {
    await run('reset', '--empty');
    expect((await api(emulator)('GET', '/_emu/state', { token: ADMIN_TOKEN })).body.collections).toEqual({});
    await run('reset');
    expect((await endpoint('meter-001')).status).toBe(200);
  });

  it('says what to do without the admin token, and refuses a bad duration or fault', async () => {
    const denied = await cli(['reset', ...url]);
    expect(denied.exitCode).toBe(1);
    expect(String(denied.stderr)).toContain('PLATFORM_EMU_ADMIN_TOKEN');
    const badDuration = await cli(['clock', 'advance', '3 weeks', ...url], admin);
    expect(badDuration.exitCode).toBe(1);
    expect(String(badDuration.stderr)).toContain('is not a duration');
    expect((await cli(['faults', 'add', 'http', '--path', '/x', '--status', '200', ...url], admin)).exitCode).toBe(2);
  });
});

describe('platform-emu logs', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];

  it('prints the journal, filtered, as lines or JSON; --follow prints new entries as they happen', async () => {
    await api(emulator)('GET', '/epr/api/v1/endpoints/meter-001');
    await api(emulator)('GET', '/epr/api/v1/endpoints/missing');
    const lines = await cli(['logs', '--service', 'epr', ...url]);
    expect(lines.exitCode).toBe(0);
    expect(String(lines.stdout)).toMatch(
      new RegExp(
        String.raw`^\d\d:\d\d:\d\d\.\d{3}\s+200\s+GET\s+\/epr\/api\/v1\/endpoints\/meter-001\s+acme ` +
          String.raw`meter-001\s+[\d.]+ ms\n.*\s404\s+GET`,
      ),
    );
    const json = await cli(['logs', '--status', '404', '--json', ...url]);
    expect(
      String(json.stdout)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).path),
    ).toEqual(['/epr/api/v1/endpoints/missing']);

    const follower = execa(
      'node',
      [BIN, 'logs', '--follow', '--limit', '1', '--path', '/epr/api/v1/endpoints/meter-00', ...url],
      {
        reject: false,
        env: { NO_COLOR: '1' },
        buffer: false,
      },
    );
    let out = '';
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => out.includes(text) && (follower.stdout!.off('data', onData), resolve());
        const onData = (chunk: Buffer) => ((out += chunk.toString()), check());
        follower.stdout!.on('data', onData);
        check();
      });
    await seen('/epr/api/v1/endpoints/meter-001');
    // Entries recorded between the backlog and the stream's start are replayed by the stream (after=<seq>): no gap.
    const next = seen('/epr/api/v1/endpoints/meter-002');
    await api(emulator)('GET', '/epr/api/v1/endpoints/meter-002');
    await next;
    follower.kill('SIGINT');
    await follower;
    expect(out).not.toContain('missing');
  });
});

/** Resolves once the emulator process has printed a line matching the pattern. */
function printed(emulator: EmulatorProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!pattern.test(emulator.stdout())) return;
      emulator.child.stdout!.off('data', check);
      resolve();
    };
    emulator.child.stdout!.on('data', check);
    check();
  });
}

describe('platform-emu start with the control-plane flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-control-cli-'));
  let emulator: EmulatorProcess | undefined;
  afterAll(async () => {
    await emulator?.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  // Three steps on one emulator process, in order, so that each stays well inside its time on a busy machine.
  it('--log requests prints each request; the CLI finds the admin token in the lock of --data', async () => {
    emulator = await startProcess([
      '--port',
      '0',
      '--quiet',
      '--auth',
      'on',
      '--data',
      dir,
      '--log',
      'requests',
      '--journal-size',
      '10',
    ]);
    const reset = await cli(['reset', '--data', dir]);
    expect(reset.exitCode, String(reset.stderr)).toBe(0);
    await printed(emulator, /204\s+POST\s+\/_emu\/reset/);
  });

  it(
    'fixtures export of the running emulator redacts secrets, unless --include-secrets (a file ' + 'of mode 0600)',
    async () => {
      expect(emulator).toBeDefined();
      const redacted = await cli(['fixtures', 'export', '--data', dir]);
      expect(redacted.exitCode, String(redacted.stderr)).toBe(0);
      expect(String(redacted.stdout)).toContain('"client_backend_secret": "<redacted>"');
      expect(String(redacted.stdout)).not.toContain('acme-backend-secret');
      const clear = await cli(['fixtures', 'export', '--include-secrets', '--data', dir]);
      expect(String(clear.stdout)).toContain('acme-backend-secret');
      const file = join(dir, 'with-secrets.json');
      expect((await cli(['fixtures', 'export', file, '--include-secrets', '--data', dir])).exitCode).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain('acme-backend-secret');
      // Secrets in clear: readable by its owner only.
      expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    },
  );

  it('fixtures export of the stopped directory redacts secrets too', async () => {
    expect((await emulator!.stop('SIGTERM')).exitCode).toBe(0);
    const offline = await cli(['fixtures', 'export', '--data', dir]);
    expect(offline.exitCode, String(offline.stderr)).toBe(0);
    expect(String(offline.stdout)).toContain('"secret": "<redacted>"');
  });
});
