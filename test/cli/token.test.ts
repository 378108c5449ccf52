import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../../src/auth/tokens.js';
import { expectOneLineError, getJson, processesOfThisFile } from '../helpers/cli-processes.js';
import { cli } from '../store/emulator-process.js';

const { root, start, seededDir } = processesOfThisFile();

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
