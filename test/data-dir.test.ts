import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../src/auth/tokens.js';
import {
  adminTokenOf,
  openDataDir,
  readEmulatorLock,
  rootCertificateOf,
  startEmulator,
  type JournalEntry,
} from '../src/index.js';

const secretsOf = (document: { collections: Record<string, Record<string, Record<string, unknown>>> }) =>
  Object.values(document.collections['realm-clients']).map((client) => client.secret);

describe('an emulator a program did not start, or one that is not running (docs/api.md)', () => {
  it('finds a running one by its lock, hears its requests, exports it; then opens the stopped directory', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'data-dir-')), 'state');
    const emulator = await startEmulator({ port: 0, mqttPort: 0, dataDir, log: () => undefined });
    try {
      expect(readEmulatorLock(dataDir)).toMatchObject({ pid: process.pid });

      const heard: JournalEntry[] = [];
      const stopHearing = emulator.onRequest((entry) => heard.push(entry));
      expect((await fetch(`${emulator.url}/epr/api/v1/endpoints/meter-001`)).status).toBe(200);
      stopHearing();
      await fetch(`${emulator.url}/epr/api/v1/endpoints`);
      expect(heard.map((entry) => entry.path)).toEqual(['/epr/api/v1/endpoints/meter-001']);

      expect(secretsOf(emulator.exportState())).toContain('<redacted>');
      expect(secretsOf(emulator.exportState({ includeSecrets: true }))).not.toContain('<redacted>');
      await expect(openDataDir(dataDir, { log: () => undefined })).rejects.toThrow(/is in use by/);
    } finally {
      await emulator.stop();
    }
    expect(readEmulatorLock(dataDir)).toBeUndefined();

    const stopped = await openDataDir(dataDir, { log: () => undefined });
    try {
      const exported = stopped.exportState();
      expect(Object.keys(exported.collections.endpoints)).toContain('meter-001');
      expect(secretsOf(exported)).toContain('<redacted>');
      const { token, tenantId } = stopped.token({ baseUrl: 'http://127.0.0.1:8080' });
      expect(token).toMatch(/^ey/);
      expect(tenantId).toBe('acme');
      delete (exported.collections.endpoints as Record<string, unknown>)['meter-001'];
      await stopped.importState(exported, 'the edited export');
      expect(Object.keys(stopped.exportState().collections.endpoints)).not.toContain('meter-001');
    } finally {
      await stopped.close();
    }
    expect(await adminTokenOf(dataDir)).toMatch(/^ey/);
  });

  it("finds a new directory's key and authority, which it makes once ready, when asked for at once", async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'data-dir-')), 'state');
    const emulator = await startEmulator({ port: 0, mqttPort: 0, dataDir, log: () => undefined });
    try {
      // The key takes 100-300 ms to make after the start: both wait for the file the emulator writes.
      const [adminToken, certificate] = await Promise.all([adminTokenOf(dataDir), rootCertificateOf(dataDir)]);
      const key = JSON.parse(await readFile(join(dataDir, 'signing-key.json'), 'utf8'));
      expect(verifyAccessToken(key, adminToken!).scope).toBe('emulator:admin');
      expect(certificate).toBe(emulator.caCertificate);
    } finally {
      await emulator.stop();
    }
  });

  it('signs at once on a new directory whose key is not made yet, and keeps that key', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'data-dir-')), 'state');
    const emulator = await startEmulator({ port: 0, mqttPort: 0, dataDir, log: () => undefined });
    const token = emulator.token();
    const certificate = emulator.caCertificate;
    await emulator.stop();
    const key = JSON.parse(await readFile(join(dataDir, 'signing-key.json'), 'utf8'));
    expect(verifyAccessToken(key, token).sub).toBeTruthy();
    expect(await rootCertificateOf(dataDir)).toBe(certificate);
  });
});
