import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import { startEmulator, type RunningEmulator } from '../../src/index.js';
import { ENDPOINTS } from '../../src/services/epr/endpoints.js';
import { collection, Store, UndeclaredCollectionError } from '../../src/store/index.js';

interface Note {
  tenantId: string;
  text: string;
}

/** What a fifteenth service would hold if its descriptor forgot to list `notes` under `collections`. */
const NOTES = collection<Note>('notes').index('tenant', (n) => n.tenantId);

describe('a collection no service declares', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
  });
  afterAll(() => emulator.stop());

  it('refuses the first write through its handle, and nothing changes', async () => {
    const ctx = internalContext(emulator);
    const before = ctx.store.exportDocument();
    await expect(NOTES.put(ctx, '1', { tenantId: 't', text: 'hello' })).rejects.toThrow(UndeclaredCollectionError);
    await expect(NOTES.put(ctx, '1', { tenantId: 't', text: 'hello' })).rejects.toThrow(/notes is not declared/);
    expect(NOTES.get(ctx, '1')).toBeUndefined();
    expect(NOTES.lookup(ctx, 'tenant', 't')).toEqual([]);
    expect(ctx.store.exportDocument()).toEqual(before);
    const exported = (await (await fetch(`${emulator.url}/_emu/state`)).json()) as {
      collections: Record<string, unknown>;
    };
    expect(exported.collections).not.toHaveProperty('notes');
  });

  it('refuses a commit that also writes a declared collection: all or nothing', async () => {
    const ctx = internalContext(emulator);
    const [endpoint] = ENDPOINTS.values(ctx);
    expect(endpoint).toBeDefined();
    const before = ctx.store.revision;
    const renamed = { ...endpoint, updatedDate: '2030-01-01T00:00:00.000Z' };
    await expect(
      ctx.store.commit([
        ENDPOINTS.putMutation(endpoint.endpointId, renamed),
        NOTES.putMutation('1', { tenantId: 't', text: 'x' }),
      ]),
    ).rejects.toThrow(UndeclaredCollectionError);
    expect(ENDPOINTS.get(ctx, endpoint.endpointId)).toEqual(endpoint);
    expect(ctx.store.revision).toBe(before);
  });

  it('is refused through the store API too (a raw put), while declared collections are written', async () => {
    const store = await Store.open({ inMemory: true });
    store.declare(['notes']);
    await store.put('notes', '1', { text: 'kept' });
    await expect(store.put('drafts', '1', { text: 'lost' })).rejects.toThrow(UndeclaredCollectionError);
    await expect(store.append('points', 'a', [[1, 1]])).rejects.toThrow(UndeclaredCollectionError);
    expect(store.exportDocument().collections).toEqual({ notes: { '1': { text: 'kept' } } });
    await store.close();
  });
});
