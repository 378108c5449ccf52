import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { tenantRequest } from '../helpers/tenants.js';

const NEW_TENANT = tenantRequest('initech', { idp_version: true });

const dir = mkdtempSync(join(tmpdir(), 'platform-emu-seeds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const collectionsOf = (emulator: RunningEmulator) =>
  emulator.exportState({ includeSecrets: true }).collections as Record<string, Record<string, Record<string, unknown>>>;

describe('an export without secrets seeds a new emulator', async () => {
  const first = await startTestEmulator();
  // A tenant the fixtures do not define: its secrets can only be made anew.
  const created = await api(first)('POST', '/tenant-manager/api/v1/tenants', { body: NEW_TENANT });
  const exported = join(dir, 'state.json');
  writeFileSync(exported, JSON.stringify(first.exportState()));

  it(
    'takes the secrets of fixture records from the fixtures and makes the others, shown once on the ' + 'handle',
    async () => {
      expect(created.status).toBe(201);
      const second = await startEmulator({
        port: 0,
        mqttPort: 0,
        inMemory: true,
        import: exported,
        log: () => undefined,
      });
      try {
        const stored = collectionsOf(second);
        expect(stored.tenants.acme.client_backend_secret).toBe('acme-backend-secret');
        expect(stored['realm-clients']['acme/acme-backend'].secret).toBe('acme-backend-secret');
        const tenantId = created.body.id as string;
        const made = second.generatedSecrets.find((s) => s.collection === 'tenants' && s.id === tenantId);
        expect(made?.value).toMatch(/^[\w-]{24}$/);
        // The tenant's backend client is one of its realm's clients: the same secret for both.
        const client = stored.tenants[tenantId].client_backend_id as string;
        expect(stored['realm-clients'][`${tenantId}/${client}`].secret).toBe(made!.value);
        expect(second.generatedSecrets.every((s) => s.id.startsWith(tenantId))).toBe(true);
      } finally {
        await second.stop();
      }
    },
  );

  it('PUT /_emu/state answers the secrets it made, and 204 when it made none', async () => {
    const other = await startTestEmulator({ fixtures: 'none' });
    const document = first.exportState();
    const made = await api(other)('PUT', '/_emu/state', { body: document });
    expect(made.status).toBe(200);
    expect(made.body.generatedSecrets.length).toBeGreaterThan(0);
    const again = await api(other)('PUT', '/_emu/state', { body: document });
    expect(again.status).toBe(204);
  });
});
