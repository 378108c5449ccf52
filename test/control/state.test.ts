import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const invoke = (call: ReturnType<typeof api>) =>
  call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', { body: {} });
const endpointCount = async (call: ReturnType<typeof api>) =>
  (await call('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements;

describe('reset', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('goes back to the fixtures, or to an empty platform with { "empty": true }', async () => {
    await call('POST', '/epr/api/v1/endpoints', {
      body: { appVersion: { name: 'tracker-v1' }, endpointId: 'extra-1' },
    });
    expect(await endpointCount(call)).toBe(11);
    expect((await call('POST', '/_emu/reset')).status).toBe(204);
    expect(await endpointCount(call)).toBe(10);
    expect((await call('POST', '/_emu/reset', { body: { empty: true } })).status).toBe(204);
    expect((await call('GET', '/_emu/state')).body.collections).toEqual({});
    expect((await call('POST', '/_emu/reset', { body: { empty: false } })).status).toBe(204);
    expect(await endpointCount(call)).toBe(10);
  });

  it('refuses a body that is not { "empty": boolean } and changes nothing', async () => {
    const response = await call('POST', '/_emu/reset', { body: { empty: 'yes' } });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('empty');
    expect(await endpointCount(call)).toBe(10);
  });

  it('never hands out a command id twice: counters stay where they were across resets', async () => {
    const first = (await invoke(call)).body.commandId;
    await call('POST', '/_emu/reset');
    const second = (await invoke(call)).body.commandId;
    await call('POST', '/_emu/reset', { body: { empty: true } });
    await call('POST', '/_emu/reset');
    const third = (await invoke(call)).body.commandId;
    expect(second).toBeGreaterThan(first);
    expect(third).toBeGreaterThan(second);
  });

  it('runs concurrent resets one after the other, ending in one whole state', async () => {
    const answers = await Promise.all([
      call('POST', '/_emu/reset', { body: { empty: true } }),
      call('POST', '/_emu/reset'),
      call('POST', '/_emu/reset', { body: { empty: true } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204]);
    expect((await call('GET', '/_emu/state')).body.collections).toEqual({});
    await emulator.reset();
    expect(await endpointCount(call)).toBe(10);
  });

  it('answers a wrong method on a control route with 405 and Allow', async () => {
    const response = await call('GET', '/_emu/reset');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.body.message).toContain('POST');
  });
});

describe('secrets in exports', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('are redacted unless includeSecrets=true', async () => {
    const redacted = (await call('GET', '/_emu/state')).body;
    expect(redacted.collections.tenants.acme.client_backend_secret).toBe('<redacted>');
    expect(
      redacted.collections['realm-clients']['acme/acme-backend'] ??
        Object.values(redacted.collections['realm-clients'])[0],
    ).toMatchObject({ secret: '<redacted>' });
    expect(JSON.stringify(redacted)).not.toContain('acme-backend-secret');
    expect(JSON.stringify(redacted)).not.toContain('dev-password');
    const clear = (await call('GET', '/_emu/state?includeSecrets=true')).body;
    expect(JSON.stringify(clear)).toContain('acme-backend-secret');
    expect((await call('GET', '/_emu/state?includeSecrets=maybe')).status).toBe(400);
  });

  it('an export without secrets imports again and keeps the stored secrets', async () => {
    const redacted = (await call('GET', '/_emu/state')).body;
    expect((await call('PUT', '/_emu/state', { body: redacted })).status).toBe(204);
    const grant = await fetch(`${emulator.url}/auth/realms/acme/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'acme-backend',
        client_secret: 'acme-backend-secret',
      }),
    });
    expect(grant.status).toBe(200);
    expect(JSON.stringify((await call('GET', '/_emu/state?includeSecrets=true')).body)).toContain(
      'acme-backend-secret',
    );
  });

  it('a redacted secret with no stored value to keep is made anew and answered once', async () => {
    const redacted = (await call('GET', '/_emu/state')).body;
    const renamed = structuredClone(redacted);
    renamed.collections.tenants.initech = {
      ...renamed.collections.tenants.acme,
      id: 'initech',
      tenantId: 'initech',
      realm_name: 'initech',
    };
    const response = await call('PUT', '/_emu/state', { body: renamed });
    expect(response.status).toBe(200);
    const made = response.body.generatedSecrets.find(
      (s: { collection: string; id: string }) => s.collection === 'tenants' && s.id === 'initech',
    );
    expect(made).toMatchObject({ field: 'client_backend_secret', value: expect.stringMatching(/^[\w-]{24}$/) });
    const stored = (await call('GET', '/_emu/state?includeSecrets=true')).body;
    expect(stored.collections.tenants.initech.client_backend_secret).toBe(made.value);
  });
});

describe('snapshots in memory', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('save, list, restore atomically and delete; restore keeps id counters going', async () => {
    expect((await call('PUT', '/_emu/snapshots/seeded')).status).toBe(201);
    expect((await call('PUT', '/_emu/snapshots/seeded')).status).toBe(200);
    const before = (await invoke(call)).body.commandId;
    await call('POST', '/epr/api/v1/endpoints', {
      body: { appVersion: { name: 'tracker-v1' }, endpointId: 'after-snapshot' },
    });
    expect((await call('POST', '/_emu/snapshots', { body: { name: 'changed' } })).status).toBe(201);
    const list = (await call('GET', '/_emu/snapshots')).body;
    expect(list.map((s: { name: string }) => s.name)).toEqual(['changed', 'seeded']);
    expect(list[0]).toEqual({ name: 'changed', savedAt: expect.stringMatching(/^\d{4}-/) });

    expect((await call('POST', '/_emu/snapshots/seeded/restore')).status).toBe(204);
    expect((await call('GET', '/epr/api/v1/endpoints/after-snapshot')).status).toBe(404);
    expect((await invoke(call)).body.commandId).toBeGreaterThan(before);
    expect((await call('POST', '/_emu/snapshots/changed/restore')).status).toBe(204);
    expect((await call('GET', '/epr/api/v1/endpoints/after-snapshot')).status).toBe(200);

    expect((await call('DELETE', '/_emu/snapshots/changed')).status).toBe(204);
    expect((await call('DELETE', '/_emu/snapshots/changed')).status).toBe(404);
    expect((await call('POST', '/_emu/snapshots/changed/restore')).status).toBe(404);
    expect((await call('GET', '/_emu/snapshots')).body.map((s: { name: string }) => s.name)).toEqual(['seeded']);
  });

  it('refuses names with path separators or other characters', async () => {
    for (const name of ['..%2Fescape', '.hidden', 'a%5Cb', 'x'.repeat(101)]) {
      const response = await call('PUT', `/_emu/snapshots/${name}`);
      expect(response.status, name).toBe(400);
      expect(response.body.message).toContain('no path separators');
    }
    expect((await call('POST', '/_emu/snapshots', { body: { name: 'a/b' } })).status).toBe(400);
    expect((await call('POST', '/_emu/snapshots', { body: {} })).status).toBe(400);
  });

  it('are the handle API too', async () => {
    const info = await emulator.snapshot('from-handle');
    expect(info.name).toBe('from-handle');
    await call('POST', '/epr/api/v1/endpoints', {
      body: { appVersion: { name: 'tracker-v1' }, endpointId: 'handle-extra' },
    });
    await emulator.restore('from-handle');
    expect((await call('GET', '/epr/api/v1/endpoints/handle-extra')).status).toBe(404);
    expect((await emulator.snapshots()).map((s) => s.name)).toContain('from-handle');
    await emulator.deleteSnapshot('from-handle');
    await expect(emulator.restore('from-handle')).rejects.toThrow(/no snapshot from-handle/);
  });
});

describe('snapshots in a data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-snapshots-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are files readable by the owner only, survive a restart, and one from a newer schema is refused', async () => {
    const options = { port: 0, mqttPort: 0, dataDir: dir, log: () => undefined };
    let emulator = await startEmulator(options);
    try {
      expect((await api(emulator)('PUT', '/_emu/snapshots/base')).status).toBe(201);
      const file = join(dir, 'snapshots', 'base.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8')).schemaVersion).toBe(1);
      const listed = (await api(emulator)('GET', '/_emu/snapshots')).body;
      expect(listed).toEqual([{ name: 'base', savedAt: expect.any(String), bytes: statSync(file).size }]);
    } finally {
      await emulator.stop();
    }
    emulator = await startEmulator(options);
    try {
      const call = api(emulator);
      await call('POST', '/epr/api/v1/endpoints', {
        body: { appVersion: { name: 'tracker-v1' }, endpointId: 'gone-after-restore' },
      });
      expect((await call('POST', '/_emu/snapshots/base/restore')).status).toBe(204);
      expect((await call('GET', '/epr/api/v1/endpoints/gone-after-restore')).status).toBe(404);

      const future = { ...JSON.parse(readFileSync(join(dir, 'snapshots', 'base.json'), 'utf8')), schemaVersion: 99 };
      writeFileSync(join(dir, 'snapshots', 'future.json'), JSON.stringify(future));
      const refused = await call('POST', '/_emu/snapshots/future/restore');
      expect(refused.status).toBe(409);
      expect(refused.body.message).toMatch(/newer platform-emu \(state schema 99; this one reads up to 1\)/);
      expect((await call('GET', '/epr/api/v1/endpoints?limit=0')).body.totalElements).toBe(10);

      const edited = JSON.parse(readFileSync(join(dir, 'snapshots', 'base.json'), 'utf8'));
      delete edited.collections.endpoints['meter-001'].appVersion;
      writeFileSync(join(dir, 'snapshots', 'edited.json'), JSON.stringify(edited));
      await call('POST', '/epr/api/v1/endpoints', {
        body: { appVersion: { name: 'tracker-v1' }, endpointId: 'kept-after-refusal' },
      });
      const invalid = await call('POST', '/_emu/snapshots/edited/restore');
      expect(invalid.status).toBe(409);
      expect(invalid.body.message).toMatch(
        /^snapshot edited: collections\.endpoints\["meter-001"\]: .*Nothing was changed\.$/,
      );
      expect((await call('GET', '/epr/api/v1/endpoints/kept-after-refusal')).status).toBe(200);
    } finally {
      await emulator.stop();
    }
  });
});
