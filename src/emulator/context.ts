import { inMemoryKey, loadOrMakeKey, readKey, type SigningKey } from '../auth/keys.js';
import { VirtualClock } from '../clock.js';
import type { EmulatorConfig } from '../config.js';
import { createEventBus, type EmuContext } from '../context.js';
import { declaredCollections } from '../contract.js';
import { FixtureError } from '../seed/errors.js';
import { CLOCK_CHANGED, type ClockChange } from '../server/events.js';
import { services } from '../services/index.js';
import { defaultTenantId, findTenantByRealm } from '../services/tenant-manager/tenants.js';
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
 * The opened store's context, its services not set up yet, and its signing key's promise: a new data directory's RSA
 * key is made on the thread pool meanwhile (and saved once the directory has opened); in memory, when first needed.
 */
export async function openStoreContext(
  config: EmulatorConfig,
  log: (m: string) => void,
  readOnly: boolean,
): Promise<{ ctx: EmuContext; keyReady: Promise<void> }> {
  const pendingKey = config.inMemory
    ? Promise.resolve(undefined)
    : readOnly
      ? readKey(config.dataDir!).then((key) => key && { key, save: undefined })
      : loadOrMakeKey(config.dataDir!);
  pendingKey.catch(() => undefined);
  const store = await Store.open({
    dir: config.dataDir,
    inMemory: config.inMemory,
    compactBytes: config.compactBytes,
    warn: log,
    readOnly,
  });
  let key: SigningKey | undefined;
  const keyReady = pendingKey.then(async (made) => {
    if (!made && !config.inMemory)
      throw new FixtureError(`${config.dataDir} has no signing key yet: start the emulator on it once.`);
    await made?.save?.();
    key = made?.key;
  });
  keyReady.catch(() => undefined);
  const keys = config.inMemory
    ? undefined
    : () => {
        if (!key) throw new Error('The signing key is not ready yet.');
        return key;
      };
  return { ctx: createContext(config, store, keys, log), keyReady };
}

/** A data directory's context with its services set up, and no server: what the CLI works on while nothing runs. */
export async function openContext(
  config: EmulatorConfig,
  log: (m: string) => void,
  readOnly = false,
): Promise<EmuContext> {
  const { ctx, keyReady } = await openStoreContext(config, log, readOnly);
  try {
    await keyReady;
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
