import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/index.js';
import { Store, StoreWriteError } from '../../src/store/index.js';
import { DirectoryLock } from '../../src/store/lock.js';
import { api } from '../helpers/emulator.js';

/**
 * A real full disk: a small tmpfs mounted for this file (the tests run as root in CI and in the dev
 * container). Where mounting is not allowed, the tests are skipped and the reason is printed as a test name.
 */
function mountSmallDisk(): { dir?: string; reason?: string } {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim() };
  }
}

const disk = mountSmallDisk();
afterAll(() => {
  if (!disk.dir) return;
  execFileSync('umount', [disk.dir]);
  rmSync(disk.dir, { recursive: true, force: true });
});

const FILLER = () => join(disk.dir!, 'filler');
/** Takes every free byte of the small disk. */
function fillDisk(): void {
  const fd = openSync(FILLER(), 'a');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}
const freeDisk = () => rmSync(FILLER(), { force: true });

let dirs = 0;
const running: RunningEmulator[] = [];
afterEach(async () => {
  freeDisk();
  for (const emulator of running.splice(0)) await emulator.stop().catch(() => undefined);
});

async function start(dataDir: string, warnings: string[] = []): Promise<RunningEmulator> {
  const emulator = await startEmulator({ port: 0, mqttPort: 0, dataDir, log: (m) => warnings.push(m) });
  running.push(emulator);
  return emulator;
}

/** A line longer than the room left in the log's last page, so that a full disk cuts its write short. */
const bigMetadata = { blob: 'x'.repeat(12_000) };
const register = (call: ReturnType<typeof api>, endpointId: string, metadata: object = {}) =>
  call('POST', '/epr/api/v1/endpoints', { body: { appVersion: { name: 'smart-meter-v1' }, endpointId, metadata } });

describe.skipIf(!disk.dir)('a full disk', () => {
  it(
    'never acknowledges a line cut short; the failed change is gone from memory, health says why, and writing ' +
      'resumes when there is room',
    async () => {
      const dataDir = join(disk.dir!, `data-${++dirs}`);
      const warnings: string[] = [];
      const emulator = await start(dataDir, warnings);
      const call = api(emulator);
      const log = join(dataDir, 'mutations.jsonl');
      expect((await register(call, 'before-full')).status).toBe(201);
      const logBefore = readFileSync(log, 'utf8');

      fillDisk();
      const failed = await register(call, 'cut-short', bigMetadata);
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(failed.body.message).toMatch(/could not be written to disk \(ENOSPC/);
      // Nothing of the 201 goes out when the write fails.
      expect(failed.headers.get('location')).toBeNull();
      // The log holds exactly the acknowledged lines: the partial one was cut off again.
      expect(readFileSync(log, 'utf8')).toBe(logBefore);
      expect((await call('GET', '/epr/api/v1/endpoints/cut-short')).status).toBe(404);
      expect((await call('GET', '/_emu/state')).body.collections.endpoints).not.toHaveProperty('cut-short');

      const failing = await call('GET', '/_emu/health');
      expect(failing.status).toBe(503);
      expect(failing.body).toMatchObject({
        status: 'failing',
        message: expect.stringMatching(/could not be written to disk \(ENOSPC/),
      });

      freeDisk();
      expect((await register(call, 'after-space')).status).toBe(201);
      const healthy = await call('GET', '/_emu/health');
      expect(healthy.status).toBe(200);
      expect(healthy.body.status).toBe('ready');

      await emulator.stop();
      const saved = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')).collections.endpoints;
      expect(Object.keys(saved)).toEqual(expect.arrayContaining(['before-full', 'after-space']));
      expect(saved).not.toHaveProperty('cut-short');

      const again = await start(dataDir, warnings);
      const after = api(again);
      expect((await after('GET', '/epr/api/v1/endpoints/before-full')).status).toBe(200);
      expect((await after('GET', '/epr/api/v1/endpoints/after-space')).status).toBe(200);
      expect((await after('GET', '/epr/api/v1/endpoints/cut-short')).status).toBe(404);
      expect(warnings.join('\n')).not.toMatch(/torn/);
    },
  );

  it('fails concurrent requests, undoing each (updates too), and keeps ids handed out for the next line', async () => {
    const dataDir = join(disk.dir!, `data-${++dirs}`);
    const emulator = await start(dataDir);
    const call = api(emulator);
    const app = (await call('GET', '/app-manager/api/v1/applications/smart-meter')).body;
    const template = (description: string) =>
      call('POST', '/tenant-manager/api/v1/templates/realms', { body: { template: {}, description } });

    fillDisk();
    const attempts = await Promise.all([
      register(call, 'concurrent-1', bigMetadata),
      register(call, 'concurrent-2', bigMetadata),
      // Two mutations in one commit: a new version and the application's updatedDate.
      call('POST', '/app-manager/api/v1/applications/smart-meter/versions', {
        body: { name: 'smart-meter-v9', description: 'y'.repeat(12_000) },
      }),
      template('z'.repeat(12_000)),
    ]);
    for (const attempt of attempts) expect(attempt.status).toBeGreaterThanOrEqual(500);
    for (const id of ['concurrent-1', 'concurrent-2'])
      expect((await call('GET', `/epr/api/v1/endpoints/${id}`)).status).toBe(404);
    expect((await call('GET', '/app-manager/api/v1/applications/smart-meter')).body).toEqual(app);
    expect((await call('GET', '/tenant-manager/api/v1/templates/realms')).body.count).toBe(0);

    freeDisk();
    const second = await template('small');
    expect(second.status).toBe(201);
    // Template 1 was handed out to the failed request: it is never handed out again, even after a restart.
    expect(second.body.id).toBe(2);
    await emulator.stop();
    const again = await start(dataDir);
    expect(
      (
        await api(again)('POST', '/tenant-manager/api/v1/templates/realms', {
          body: { template: {}, description: 'third' },
        })
      ).body.id,
    ).toBe(3);
  });

  it(
    'rejects every commit of a batch whose write falls short, small ones included, and undoes them newest ' + 'first',
    async () => {
      const dataDir = join(disk.dir!, `data-${++dirs}`);
      const store = await Store.open({ dir: dataDir, warn: () => undefined });
      try {
        await store.put('things', 'seed', { version: 1 });
        fillDisk();
        // Made in one stretch of synchronous code, so written as one batch: the small line alone would still fit.
        const batch = [
          store.put('things', 'small', { n: 1 }),
          store.put('things', 'seed', { version: 2 }),
          store.put('things', 'big', bigMetadata),
          store.delete('things', 'seed'),
        ];
        const outcomes = await Promise.allSettled(batch);
        expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
        expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(StoreWriteError);
        expect(store.get('things', 'small')).toBeUndefined();
        expect(store.get('things', 'big')).toBeUndefined();
        expect(store.get('things', 'seed')).toEqual({ version: 1 });
        expect(store.revision).toBe(1);
        expect(store.failure).toMatch(/ENOSPC/);

        freeDisk();
        await store.put('things', 'later', { n: 2 });
        expect(store.failure).toBeUndefined();
        expect(store.revision).toBe(2);
      } finally {
        await store.close();
      }
      const lines = readFileSync(join(dataDir, 'state.json'), 'utf8');
      expect(JSON.parse(lines)).toMatchObject({
        seq: 2,
        collections: { things: { seed: { version: 1 }, later: { n: 2 } } },
      });
    },
  );

  it('joins in one batch, under concurrent writers, the commits of every callback of one turn of the event loop', async () => {
    const dataDir = join(disk.dir!, `data-${++dirs}`);
    const store = await Store.open({ dir: dataDir, warn: () => undefined });
    try {
      // Two writers at once: from here on a flush waits one turn of the event loop before it writes.
      await Promise.all([store.put('things', 'a', { n: 1 }), store.put('things', 'b', { n: 2 })]);
      fillDisk();
      // Two callbacks of one turn, as two requests read together: the small line alone would fit, the big one not.
      const outcomes = await new Promise<PromiseSettledResult<void>[]>((resolve) => {
        const commits: Promise<void>[] = [];
        setImmediate(() => commits.push(store.put('things', 'small', { n: 3 })));
        setImmediate(() => {
          commits.push(store.put('things', 'big', bigMetadata));
          resolve(Promise.allSettled(commits));
        });
      });
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect(store.get('things', 'small')).toBeUndefined();
      expect(store.revision).toBe(2);
    } finally {
      freeDisk();
      await store.close();
    }
  });

  it('keeps the old state when an imported one cannot be written, and the log stays readable', async () => {
    const dataDir = join(disk.dir!, `data-${++dirs}`);
    const emulator = await start(dataDir);
    const call = api(emulator);
    const before = (await call('GET', '/_emu/state')).body;
    const imported = structuredClone(before);
    imported.collections.endpoints['meter-001'].metadata = bigMetadata;
    delete imported.collections.endpoints['meter-002'];

    fillDisk();
    const importing = await call('PUT', '/_emu/state', { body: imported });
    expect(importing.status).toBeGreaterThanOrEqual(500);
    expect(importing.body.message).toMatch(/could not be written to disk.*the state is as it was/);
    expect((await call('GET', '/_emu/state')).body).toEqual(before);
    expect((await call('GET', '/epr/api/v1/endpoints/meter-002')).status).toBe(200);

    freeDisk();
    expect((await register(call, 'after-import')).status).toBe(201);
    await emulator.stop();
    const again = await start(dataDir);
    const after = api(again);
    expect((await after('GET', '/epr/api/v1/endpoints/after-import')).status).toBe(200);
    expect((await after('GET', '/epr/api/v1/endpoints/meter-002')).status).toBe(200);
  });

  it('never lets a stop save what the log did not take, even when the stop itself cannot write', async () => {
    const dataDir = join(disk.dir!, `data-${++dirs}`);
    const emulator = await start(dataDir);
    const call = api(emulator);
    expect((await register(call, 'kept')).status).toBe(201);

    fillDisk();
    expect((await register(call, 'refused', bigMetadata)).status).toBeGreaterThanOrEqual(500);
    // The snapshot cannot be written either: the stop fails loudly, releases the directory and leaves no partial file.
    await expect(emulator.stop()).rejects.toThrow(/ENOSPC/);
    expect(readdirSync(dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(join(dataDir, 'emulator.lock'))).toBe(false);

    freeDisk();
    const again = await start(dataDir);
    const after = api(again);
    expect((await after('GET', '/epr/api/v1/endpoints/kept')).status).toBe(200);
    expect((await after('GET', '/epr/api/v1/endpoints/refused')).status).toBe(404);
    await again.stop();
    const saved = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')).collections.endpoints;
    expect(saved).toHaveProperty('kept');
    expect(saved).not.toHaveProperty('refused');
    expect(statSync(join(dataDir, 'mutations.jsonl')).size).toBe(0);
  });

  it('answers a blob upload that does not fit 503, like every other write, keeping no part of it', async () => {
    const dataDir = join(disk.dir!, `data-${++dirs}`);
    const emulator = await start(dataDir);
    const call = api(emulator);
    const { token } = (await call('POST', '/kp1/smart-meter-v1/bcx/meter-001-token/token')).body;
    const upload = (size: number) =>
      call('POST', '/bcx/api/v1/binary-data?name=big', {
        rawBody: Buffer.alloc(size, 7),
        headers: { 'content-type': 'application/octet-stream', 'x-auth-token': token },
      });

    fillDisk();
    const refused = await upload(100_000);
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body.message).toMatch(
      /^The upload could not be written to disk \(ENOSPC: .*\); nothing of it was kept\. Free space, then retry\.$/,
    );
    expect(readdirSync(join(dataDir, 'blobs'))).toEqual([]);
    // One still arriving when its first write fails: its client still gets the answer, not a reset connection.
    const refusedLarge = await upload(8 * 1024 * 1024);
    expect(refusedLarge.status, JSON.stringify(refusedLarge.body)).toBe(503);
    expect(readdirSync(join(dataDir, 'blobs'))).toEqual([]);

    freeDisk();
    expect((await upload(100_000)).status).toBe(201);
  });

  it('refuses a start on a full disk saying what happened, and leaves no lock or temporary file behind', async () => {
    const dataDir = join(disk.dir!, `data-${++dirs}`);
    fillDisk();
    await expect(startEmulator({ port: 0, mqttPort: 0, dataDir, log: () => undefined })).rejects.toThrow(
      /Could not lock the data directory .*\(ENOSPC: .*\)\. Free space, then start again\./,
    );
    expect(readdirSync(dataDir)).toEqual([]);
    freeDisk();
    const emulator = await start(dataDir);
    expect((await api(emulator)('GET', '/_emu/health')).status).toBe(200);
  });

  it('leaves no temporary lock file behind when the lock cannot be updated on a full disk', async () => {
    const dataDir = join(disk.dir!, `data-${++dirs}`);
    mkdirSync(dataDir);
    const lock = DirectoryLock.acquire(dataDir, () => undefined);
    try {
      fillDisk();
      expect(() => lock.update({ url: 'http://localhost:1' })).toThrow(
        /Could not write the lock file .*emulator\.lock \(ENOSPC/,
      );
      expect(readdirSync(dataDir)).toEqual(['emulator.lock']);
    } finally {
      lock.release();
    }
  });
});

if (!disk.dir) it.skip(`a full disk: needs a small tmpfs, which could not be mounted here (${disk.reason})`);
