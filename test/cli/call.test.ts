import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acceptedScopes } from '../../src/auth/scopes.js';
import { services } from '../../src/services/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
if (!existsSync(new URL('../../dist/bundle/main.js', import.meta.url)))
  throw new Error('Run `npm run build` before the CLI tests.');

/** The control-plane admin token of the `--auth on` emulator below, given to the CLI as a user would. */
const ADMIN_TOKEN = 'call-test-admin-token';

/** The real CLI in a child process; no environment that could point it elsewhere. */
function cli(...args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_')));
  return execa('node', [BIN, ...args], {
    reject: false,
    env: { ...env, NO_COLOR: '1', PLATFORM_EMU_ADMIN_TOKEN: ADMIN_TOKEN },
    extendEnv: false,
  });
}

describe('platform-emu call', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];

  it('calls a bare path through the bare /api/v1 and prints pretty JSON, the status line on stderr', async () => {
    const result = await cli('call', 'GET', '/endpoints/meter-001', ...url);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      endpointId: 'meter-001',
      appVersion: { name: 'smart-meter-v1' },
    });
    expect(result.stdout).toContain('\n  "endpointId"');
    expect(result.stderr).toContain('200 OK');
    expect(result.stderr).toContain(`GET ${emulator.url}/api/v1/endpoints/meter-001`);
  });

  it('takes a full path with its prefix as is, and a path without a leading slash', async () => {
    const full = await cli('call', 'get', '/epr/api/v1/endpoints?limit=2', ...url);
    expect(full.exitCode).toBe(0);
    expect(JSON.parse(full.stdout).content).toHaveLength(2);
    const noSlash = await cli('call', 'GET', 'endpoints?applicationName=tracker', ...url);
    expect(JSON.parse(noSlash.stdout).totalElements).toBe(4);
  });

  it(
    'resolves a bare path to the most specific route of any service, as the bare /api/v1 of the server ' + 'does',
    async () => {
      const listed = await cli('call', 'GET', '/endpoints/commands?endpointId=meter-001&commandTypes=reboot', ...url);
      expect(listed.stderr).toContain(`GET ${emulator.url}/api/v1/endpoints/commands?endpointId=meter-001`);
      expect(listed.exitCode).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([{ endpointId: 'meter-001', commands: [] }]);
      const invoked = await cli(
        'call',
        'POST',
        '/endpoints/meter-001/commands/reboot?waitTimeout=0',
        '-d',
        '{}',
        '-i',
        ...url,
      );
      expect(invoked.stderr).toContain('202 Accepted');
      expect(invoked.stderr).toMatch(/location: \S*\/api\/v1\/endpoints\/meter-001\/commands\/reboot\/\d+/);
    },
  );

  it('sends --body as the JSON body, also from @file, and --header', async () => {
    const created = await cli(
      'call',
      'POST',
      '/endpoints',
      '--body',
      '{"appVersion":{"name":"tracker-v1"},"endpointId":"call-1"}',
      '-i',
      ...url,
    );
    expect(created.exitCode).toBe(0);
    expect(created.stderr).toContain('201 Created');
    expect(created.stderr).toMatch(/location: .*\/endpoints\/call-1/);
    expect(JSON.parse(created.stdout)).toEqual({ token: expect.any(String), status: 'Inactive' });

    const dir = await mkdtemp(join(tmpdir(), 'call-test-'));
    await writeFile(
      join(dir, 'body.json'),
      JSON.stringify({ appVersion: { name: 'tracker-v1' }, endpointId: 'call-2', metadata: { m: 1 } }),
    );
    const fromFile = await cli('call', 'POST', '/endpoints', '-d', `@${join(dir, 'body.json')}`, ...url);
    expect(fromFile.exitCode).toBe(0);
    expect((await api(emulator)('GET', '/epr/api/v1/endpoints/call-2?include=metadata')).body.metadata).toEqual({
      m: 1,
    });

    const etag = (await api(emulator)('GET', '/epr/api/v1/endpoints/call-2')).headers.get('etag')!;
    const conditional = await cli('call', 'GET', '/endpoints/call-2', '--header', `If-None-Match: ${etag}`, ...url);
    expect(conditional.exitCode).toBe(0);
    expect(conditional.stderr).toContain('304');
    expect(conditional.stdout).toBe('');
  });

  it('prints the body as received with --raw', async () => {
    const result = await cli('call', 'GET', '/endpoints/meter-002', '--raw', ...url);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('\n');
    expect(JSON.parse(result.stdout).endpointId).toBe('meter-002');
  });

  it('exits 4 on a 4xx answer and prints its message body', async () => {
    const result = await cli('call', 'GET', '/endpoints/no-such-endpoint', ...url);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('404 Not Found');
    expect(JSON.parse(result.stdout).message).toContain('no-such-endpoint');

    const invalid = await cli('call', 'POST', '/endpoints', '-d', '{"appVersion":{"name":"nope"}}', ...url);
    expect(invalid.exitCode).toBe(4);
    expect(JSON.parse(invalid.stdout).message).toMatch(/application version/i);
  });

  it('refuses a --body that is not JSON (exit 2) and sends nothing; a text content type sends it as is', async () => {
    const before = (await api(emulator)('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements;
    const bad = await cli('call', 'POST', '/endpoints', '-d', '{"appVersion":', ...url);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/not valid JSON/);
    expect((await api(emulator)('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements).toBe(before);

    const asText = await cli(
      'call',
      'POST',
      '/endpoints',
      '-d',
      '{"appVersion":',
      '-H',
      'Content-Type: text/plain',
      ...url,
    );
    expect(asText.exitCode).toBe(4);
    expect(asText.stderr).toContain('400');
  });

  it(
    "refuses a body that does not fit the operation's schema before sending it (exit 2); --no-validate sends " + 'it',
    async () => {
      const before = (await api(emulator)('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements;
      const refused = await cli('call', 'POST', '/endpoints', '-d', '{"appVersion":{}}', ...url);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(
        'Invalid request body for POST /epr/api/v1/endpoints: appVersion.name is required. (--no-validate sends ' +
          'it anyway.)',
      );
      expect((await api(emulator)('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements).toBe(before);

      const sent = await cli(
        'call',
        'POST',
        '/epr/api/v1/endpoints',
        '-d',
        '{"appVersion":{}}',
        '--no-validate',
        ...url,
      );
      expect(sent.exitCode).toBe(4);
      expect(JSON.parse(sent.stdout).message).toBe('Invalid request body: appVersion.name is required.');
    },
  );

  it(
    '--expect: 0 for the statuses it names, 6 for another answer below 400 (a command no device answered), 4 or ' +
      '5 above',
    async () => {
      const pending = await cli(
        'call',
        'POST',
        '/endpoints/meter-001/commands/reboot?waitTimeout=0',
        '-d',
        '{}',
        '--expect',
        '200',
        ...url,
      );
      expect(pending.stderr).toContain('202 Accepted');
      expect(pending.exitCode).toBe(6);
      expect((await cli('call', 'GET', '/endpoints/meter-001', '--expect', '200,304', ...url)).exitCode).toBe(0);
      expect((await cli('call', 'GET', '/endpoints/no-such-endpoint', '--expect', '404', ...url)).exitCode).toBe(0);
      expect((await cli('call', 'GET', '/endpoints/no-such-endpoint', '--expect', '200', ...url)).exitCode).toBe(4);
      const bad = await cli('call', 'GET', '/endpoints', '--expect', 'ok', ...url);
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toContain('expected HTTP statuses from 100 to 599');
    },
  );

  it('still takes the body from the deprecated --data, with one warning; never both', async () => {
    const created = await cli(
      'call',
      'POST',
      '/endpoints',
      '--data',
      '{"appVersion":{"name":"tracker-v1"},"endpointId":"call-3"}',
      ...url,
    );
    expect(created.exitCode).toBe(0);
    expect(created.stderr.match(/deprecated/g)).toHaveLength(1);
    expect(created.stderr).toContain('use -d/--body for the request body (--data-dir names the data directory)');
    expect((await api(emulator)('GET', '/epr/api/v1/endpoints/call-3')).status).toBe(200);
    expect((await cli('call', 'POST', '/endpoints', '--data', '{}', '--body', '{}', ...url)).exitCode).toBe(2);
  });

  it('usage errors exit 2: no method, an unknown method, a path no operation matches', async () => {
    expect((await cli('call', ...url)).exitCode).toBe(2);
    const method = await cli('call', 'FETCH', '/endpoints', ...url);
    expect(method.exitCode).toBe(2);
    expect(method.stderr).toContain('Unknown method FETCH');
    const path = await cli('call', 'GET', '/no/such/thing', ...url);
    expect(path.exitCode).toBe(2);
    expect(path.stderr).toContain('call --list');
  });

  it('exits 1 with a clear message when nothing listens at the URL', async () => {
    const result = await cli('call', 'GET', '/endpoints', '--url', 'http://127.0.0.1:9');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('Cannot reach the emulator at http://127.0.0.1:9');
  });

  it('--list prints every operation of the route table the server mounts, with its scope', async () => {
    const result = await cli('call', '--list');
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split('\n');
    const routes = services.flatMap((s) =>
      s.routes.map((r) => ({
        operation: `${r.method} /${s.prefix}/api/v1${r.path}`,
        scope: r.scope ? acceptedScopes(r.scope).join(' | ') : '(no scope)',
      })),
    );
    expect(lines).toHaveLength(routes.length);
    for (const { operation, scope } of routes) {
      const line = lines.find((l) => l.replace(/\s+/, ' ').startsWith(`${operation} `));
      expect(line, operation).toBeDefined();
      expect(line).toContain(scope);
    }
  });

  it('--list --json prints the same table as JSON', async () => {
    const result = await cli('call', '--list', '--json');
    expect(result.exitCode).toBe(0);
    const table = JSON.parse(result.stdout) as Array<{
      method: string;
      path: string;
      scopes: string[];
      bodySchema?: unknown;
    }>;
    expect(table).toHaveLength(services.flatMap((s) => s.routes).length);
    expect(table.find((o) => o.method === 'POST' && o.path === '/epr/api/v1/endpoints')).toMatchObject({
      service: 'epr',
      scopes: ['application:endpoint:create'],
      bodySchema: { required: ['appVersion'] },
    });
  });
});

describe('platform-emu call against an emulator with --auth on', async () => {
  const emulator = await startTestEmulator({ auth: 'on', adminToken: ADMIN_TOKEN });
  const url = ['--url', emulator.url];

  it(
    'finds a token with the admin token at hand, and 200 with --auth (a test token from the emulator) or ' + '--token',
    async () => {
      // The admin token (here PLATFORM_EMU_ADMIN_TOKEN) gets a test token, as the control-plane commands find theirs;
      // the 401 without any way to a token is in call-auth-faults.test.ts.
      const found = await cli('call', 'GET', '/endpoints/meter-001', ...url);
      expect(found.exitCode).toBe(0);

      const authed = await cli('call', 'GET', '/endpoints/meter-001', '--auth', ...url);
      expect(authed.exitCode).toBe(0);
      expect(JSON.parse(authed.stdout).endpointId).toBe('meter-001');

      const token = (
        await api(emulator)('POST', '/_emu/token', { body: { scopes: ['endpoint:read'] }, token: emulator.adminToken })
      ).body.token;
      const explicit = await cli('call', 'GET', '/endpoints/meter-001', '--token', token, ...url);
      expect(explicit.exitCode).toBe(0);
      const otherTenant = await cli('call', 'GET', '/endpoints/meter-001', '--auth', '--tenant', 'globex', ...url);
      expect(otherTenant.exitCode).toBe(4);
    },
  );
});
