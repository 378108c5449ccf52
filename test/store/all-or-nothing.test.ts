import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/index.js';
import { JsonDepthError, MAX_JSON_DEPTH, Store, StoreValueError } from '../../src/store/index.js';
import { api } from '../helpers/emulator.js';
import { DEFAULT_FIXTURES } from '../../src/config.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-all-or-nothing-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

/** An emulator on a data directory (seeded with the default fixtures when new), stopped by the caller. */
const start = (dataDir: string) => startEmulator({ port: 0, mqttPort: 0, dataDir, log: () => undefined });

/** JSON text of an object nested `levels` deep: `{"a":{"a":...1...}}` (too deep for JSON.stringify to build). */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

const json = { 'content-type': 'application/json' };

/** Every acknowledged change is there after a clean stop and a restart; the stop and the start both succeed. */
async function restart(emulator: RunningEmulator): Promise<RunningEmulator> {
  await emulator.stop();
  return start(emulator.dataDir!);
}

describe('a value nested too deeply', () => {
  it('is refused with 400 wherever it comes from, and changes nothing in memory or on disk', async () => {
    let emulator = await start(freshDir());
    let call = api(emulator);
    const before = (await call('GET', '/_emu/state')).body;

    const endpoint = await call('POST', '/epr/api/v1/endpoints', {
      rawBody: `{"appVersion":{"name":"smart-meter-v1"},"endpointId":"deep-meter","metadata":${nested(5000)}}`,
      headers: json,
    });
    expect(endpoint.status).toBe(400);
    expect(endpoint.body.message).toMatch(new RegExp(`${MAX_JSON_DEPTH}`));
    expect((await call('GET', '/epr/api/v1/endpoints/deep-meter')).status).toBe(404);

    const command = await call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', {
      rawBody: nested(5000),
      headers: json,
    });
    expect(command.status).toBe(400);
    expect(command.body.message).toMatch(new RegExp(`${MAX_JSON_DEPTH}`));

    const imported = structuredClone(before);
    imported.collections.endpoints['meter-001'].metadata = { deep: '@' };
    const text = JSON.stringify(imported).replace('"@"', nested(5000));
    const importing = await call('PUT', '/_emu/state', { rawBody: text, headers: json });
    expect(importing.status).toBe(400);
    // The control plane's body parser refuses it before the state is read, as every route's does.
    expect(importing.body.message).toMatch(/nested more than 256 levels/);

    const after = await call('GET', '/_emu/state');
    expect(after.status).toBe(200);
    expect(after.body.collections).toEqual(before.collections);
    expect(after.body.seq).toBe(before.seq);

    // The sequence did not move: the next change is logged right after the last good one, and a restart replays it.
    expect(
      (
        await call('POST', '/epr/api/v1/endpoints', {
          body: { appVersion: { name: 'smart-meter-v1' }, endpointId: 'after-deep' },
        })
      ).status,
    ).toBe(201);
    emulator = await restart(emulator);
    call = api(emulator);
    expect((await call('GET', '/epr/api/v1/endpoints/after-deep')).status).toBe(200);
    expect((await call('GET', '/epr/api/v1/endpoints/deep-meter')).status).toBe(404);
    await emulator.stop();
  });

  it('is refused in an import file, a fixture file or an export used as fixtures, at a start and at a reset', async () => {
    const emulator = await start(freshDir());
    const exported = (await api(emulator)('GET', '/_emu/state?includeSecrets=true')).body;
    await emulator.stop();
    exported.collections.endpoints['meter-001'].metadata = { deep: '@' };
    const deepExport = join(root, 'deep-export.json');
    writeFileSync(deepExport, JSON.stringify(exported).replace('"@"', nested(300)));
    const fixture = JSON.parse(readFileSync(DEFAULT_FIXTURES, 'utf8'));
    fixture.endpoints[0].metadata = { deep: '@' };
    const deepFixture = join(root, 'deep-fixture.json');
    writeFileSync(deepFixture, JSON.stringify(fixture).replace('"@"', nested(300)));
    const tooDeep = /nested more than 256 levels/;

    for (const options of [{ import: deepExport }, { fixtures: deepExport }, { fixtures: deepFixture }]) {
      const dataDir = freshDir();
      await expect(startEmulator({ port: 0, mqttPort: 0, dataDir, log: () => undefined, ...options })).rejects.toThrow(
        tooDeep,
      );
    }
    // A reset reads the fixture file again: one that became too deep since the start (or unreadable) is refused with
    // 409, the state kept.
    const fixtures = join(root, 'fixtures-that-change.json');
    writeFileSync(fixtures, readFileSync(DEFAULT_FIXTURES));
    const running = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, fixtures, log: () => undefined });
    const call = api(running);
    const added = { appVersion: { name: 'smart-meter-v1' }, endpointId: 'added-since-start' };
    expect((await call('POST', '/epr/api/v1/endpoints', { body: added })).status).toBe(201);
    for (const [text, message] of [
      [readFileSync(deepFixture, 'utf8'), tooDeep],
      [readFileSync(deepExport, 'utf8'), tooDeep],
      ['{ "endpoints": [', /is not valid JSON/],
    ] as const) {
      writeFileSync(fixtures, text);
      const reset = await call('POST', '/_emu/reset', { body: {} });
      expect(reset.status).toBe(409);
      expect(reset.body.message).toMatch(message);
      expect(reset.body.message).toContain(fixtures);
      expect(reset.body.message).toMatch(/Nothing was changed\.$/);
      expect((await call('GET', '/epr/api/v1/endpoints/added-since-start')).status).toBe(200);
    }
    await running.stop();
  });

  it(
    'is refused by the store itself before it is applied: no sequence number used, counters kept for the next ' +
      'line',
    async () => {
      const dir = freshDir();
      const store = await Store.open({ dir, warn: () => undefined });
      const id = store.nextId('things');
      let value: Record<string, unknown> = { leaf: true };
      for (let i = 0; i < MAX_JSON_DEPTH; i++) value = { value };
      const refused = await store.put('things', String(id), value).catch((err: Error) => err);
      expect(refused).toBeInstanceOf(JsonDepthError);
      expect(refused).toBeInstanceOf(StoreValueError);
      expect((refused as JsonDepthError).limit).toBe(MAX_JSON_DEPTH);
      expect(store.revision).toBe(0);
      expect(store.get('things', String(id))).toBeUndefined();

      // Exactly at the limit is fine.
      let atLimit: Record<string, unknown> = { leaf: true };
      for (let i = 1; i < MAX_JSON_DEPTH; i++) atLimit = { value: atLimit };
      await store.put('things', 'at-limit', atLimit);
      expect(store.revision).toBe(1);
      const log = readFileSync(join(dir, 'mutations.jsonl'), 'utf8');
      expect(JSON.parse(log.trim())).toMatchObject({ s: 1, c: { things: 1 } });
      await store.close();

      const reopened = await Store.open({ dir, warn: () => undefined });
      expect(reopened.get('things', 'at-limit')).toEqual(atLimit);
      expect(reopened.nextId('things')).toBe(2);
      await reopened.close();
    },
  );
});

describe('ids', () => {
  it(
    'refuses __proto__ as an id with 400; constructor, prototype and toString survive export and ' + 'restart',
    async () => {
      let emulator = await start(freshDir());
      let call = api(emulator);
      const register = (endpointId: string) =>
        call('POST', '/epr/api/v1/endpoints', {
          body: { appVersion: { name: 'smart-meter-v1' }, endpointId, metadata: { id: endpointId } },
        });

      const proto = await register('__proto__');
      expect(proto.status).toBe(400);
      expect(proto.body.message).toMatch(/__proto__/);
      const names = ['constructor', 'prototype', 'toString'];
      for (const name of names) expect((await register(name)).status).toBe(201);

      const exported = (await call('GET', '/_emu/state')).body.collections.endpoints;
      for (const name of names) expect(Object.hasOwn(exported, name) && exported[name].metadata).toEqual({ id: name });
      expect(Object.hasOwn(exported, '__proto__')).toBe(false);

      emulator = await restart(emulator);
      call = api(emulator);
      const saved = JSON.parse(readFileSync(join(emulator.dataDir!, 'state.json'), 'utf8')).collections.endpoints;
      for (const name of names) {
        expect(saved[name]?.endpointId).toBe(name);
        expect((await call('GET', `/epr/api/v1/endpoints/${name}`)).body).toMatchObject({ endpointId: name });
      }
      await emulator.stop();
    },
  );

  it(
    'refuses an id that is not a string (a tenant with a numeric id) instead of writing a log line no start can ' +
      'read',
    async () => {
      let emulator = await start(freshDir());
      let call = api(emulator);
      const versions = Object.fromEntries(
        [
          'realm_template_version',
          'realm_scopes_version',
          'client_backend_version',
          'client_frontend_version',
          'roles_version',
          'resources_version',
        ].map((f) => [f, 1]),
      );
      const created = await call('POST', '/tenant-manager/api/v1/tenants', {
        body: { id: 12345, realm_name: 'numeric', ...versions },
      });
      expect(created.status).toBe(400);
      expect(created.body.message).toMatch(/string/);

      emulator = await restart(emulator);
      call = api(emulator);
      const tenants = (await call('GET', '/tenant-manager/api/v1/tenants')).body;
      expect(JSON.stringify(tenants)).not.toContain('numeric');
      await emulator.stop();
    },
  );

  it('is checked by the store for every mutation of a commit before any of them applies', async () => {
    const dir = freshDir();
    const store = await Store.open({ dir, warn: () => undefined });
    const commit = store.commit([
      { op: 'put', c: 'things', id: 'fine', v: { ok: true } },
      { op: 'put', c: 'things', id: 7 as unknown as string, v: { ok: false } },
    ]);
    await expect(commit).rejects.toThrow(StoreValueError);
    await expect(commit).rejects.toThrow(/id of a record in things must be a string; got 7 \(number\)/);
    await expect(store.put('things', 'null-value', null as never)).rejects.toThrow(/must be a JSON object; got null/);
    expect(store.get('things', 'fine')).toBeUndefined();
    expect(store.revision).toBe(0);
    expect(readFileSync(join(dir, 'mutations.jsonl'), 'utf8')).toBe('');
    await store.close();
  });
});
