import { directoryKey, inMemoryKey, readKey, type SigningKey } from '../auth/keys.js';
import { VirtualClock } from '../clock.js';
import type { EmulatorConfig } from '../config.js';
import { createEventBus, type EmuContext } from '../context.js';
import { declaredCollections } from '../contract.js';
import { FixtureError } from '../seed/errors.js';
import { CLOCK_CHANGED, type ClockChange } from '../server/events.js';
import { services } from '../services/index.js';
import { defaultTenantId, findTenantByRealm } from '../services/tenant-manager/tenants.js';
import type { DirectorySecret } from '../store/directory-secret.js';
import { Store } from '../store/index.js';

const noDevices = { push: () => undefined };

/** The context of an opened store, with or without a server (the CLI uses it on a stopped data directory). */
export function createContext(
  config: EmulatorConfig,
  store: Store,
  keys: SigningKey | (() => SigningKey) | undefined,
  log: (m: string) => void,
): EmuContext {
  store.declare(declaredCollections(services));
  const ctx: EmuContext = {
    store,
    config,
    services,
    get keys() {
      return typeof keys === 'function' ? keys() : (keys ?? inMemoryKey());
    },
    realms: { tenantIdOfRealm: (realm) => findTenantByRealm(ctx, realm)?.id },
    clock: new VirtualClock(async (state) => {
      const change: ClockChange = { ...state, work: [] };
      ctx.events.emit(CLOCK_CHANGED, change);
      await Promise.all(change.work);
    }),
    events: createEventBus(),
    devices: noDevices,
    runtime: new Map(),
    log,
    defaultTenantId: () => defaultTenantId(ctx),
  };
  return ctx;
}

/**
 * The opened store's context, its services not set up yet, and the directory's signing key (none in memory): the one
 * it has, else a new one made when the caller says (`made()`) or when first needed (`now()`); in memory, when first
 * needed.
 */
export async function openStoreContext(
  config: EmulatorConfig,
  log: (m: string) => void,
  readOnly: boolean,
): Promise<{ ctx: EmuContext; key?: DirectorySecret<SigningKey> }> {
  const stored = config.inMemory ? Promise.resolve(undefined) : readKey(config.dataDir!);
  stored.catch(() => undefined);
  const store = await Store.open({
    dir: config.dataDir,
    inMemory: config.inMemory,
    compactBytes: config.compactBytes,
    warn: log,
    readOnly,
  });
  if (config.inMemory) return { ctx: createContext(config, store, undefined, log) };
  try {
    const existing = await stored;
    if (!existing && readOnly)
      throw new FixtureError(`${config.dataDir} has no signing key yet: start the emulator on it once.`);
    const key = directoryKey(config.dataDir!, existing, log);
    return { ctx: createContext(config, store, () => key.now(), log), key };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** A data directory's context with its services set up, and no server: what the CLI works on while nothing runs. */
export async function openContext(
  config: EmulatorConfig,
  log: (m: string) => void,
  readOnly = false,
): Promise<EmuContext> {
  const { ctx, key } = await openStoreContext(config, log, readOnly);
  try {
    await key?.made();
    await key?.settled();
    await setUpServices(ctx);
    return ctx;
  } catch (err) {
    await ctx.store.close();
    throw err;
  }
}

/** Each service's runtime (indexes, timers, waiters) on the context's state, in the service list's order. */
export async function setUpServices(ctx: EmuContext): Promise<void> {
  for (const service of services) await service.setup?.(ctx);
}

export async function tearDownServices(ctx: EmuContext): Promise<void> {
  for (const service of services) await service.teardown?.(ctx);
}
