import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { Router } from 'express';
import { inMemoryKey, loadOrMakeKey, readKey, type SigningKey } from './auth/keys.js';
import { realmPath, signAdminToken } from './auth/tokens.js';
import { VirtualClock } from './clock.js';
import { DEFAULT_FIXTURES, resolveConfig, type EmulatorConfig, type EmulatorOptions } from './config.js';
import { createEventBus, type EmuContext } from './context.js';
import { declaredCollections } from './contract.js';
import { kp1HttpRouter, onlineEndpointCount, startGateway, type Gateway } from './gateway/index.js';
import { FixtureError } from './seed/errors.js';
import { readJsonFile, seedFixture, type SeedOptions } from './seed/load.js';
import { validateStateDocument } from './seed/validate.js';
import { createApp } from './server/app.js';
import { onClientError } from './server/client-error.js';
import { presentClock } from './server/control/clock.js';
import { controlRouter } from './server/control/index.js';
import { keepStoredSecrets } from './server/control/secrets.js';
import { CLOCK_CHANGED, EMULATOR_STOPPING, STATE_REPLACED, type ClockChange } from './server/events.js';
import { faultsOf } from './server/faults.js';
import { journalOf } from './server/journal.js';
import { openApiDocument } from './server/openapi.js';
import { recordCounts } from './server/service-list.js';
import { emulatorHandle, type RunningEmulator, type TokenOptions } from './handle.js';
import { services } from './services/index.js';
import { uiRouter } from './ui/server.js';
import { oidcRouter } from './services/oidc/router.js';
import { issueTestToken } from './services/oidc/test-tokens.js';
import { defaultTenantId, findTenant, findTenantByRealm } from './services/tenant-manager/tenants.js';
import { Store, type StateDocument } from './store/index.js';
import { VERSION } from './version.js';

export type { RunningEmulator, TokenOptions };

const contexts = new WeakMap<RunningEmulator, EmuContext>();

/** The context behind a handle: for the emulator's own tests and CLI, never exported by the package. */
export function internalContext(emulator: RunningEmulator): EmuContext {
  const ctx = contexts.get(emulator);
  if (!ctx) throw new Error('Not an emulator started by startEmulator.');
  return ctx;
}

const noDevices = { push: () => undefined };

const tenantRealm = (ctx: EmuContext) => findTenant(ctx, ctx.defaultTenantId())?.realm_name ?? ctx.defaultTenantId();

/** The context of an opened store, with or without a server (the CLI uses it on a stopped data directory). */
export function createContext(config: EmulatorConfig, store: Store, keys: SigningKey | (() => SigningKey) | undefined, log: (m: string) => void): EmuContext {
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

/** Builds the state a fixture describes in a scratch store, so that a bad record changes nothing. */
async function stateFromFixture(ctx: EmuContext, fixture: unknown, source: string, options?: SeedOptions): Promise<StateDocument> {
  const scratch = createContext(ctx.config, await Store.open({ inMemory: true }), undefined, ctx.log);
  // Dated by the emulator's clock: a fixture imported at a set time has records of that time.
  scratch.clock = ctx.clock;
  for (const service of services) await service.setup?.(scratch);
  await seedFixture(scratch, fixture, source, options);
  return scratch.store.exportDocument();
}

/**
 * A state document (`fixtures export`) or a fixture file, checked before anything is replaced. Secrets an export
 * redacted keep their stored values.
 */
export async function documentFromImport(ctx: EmuContext, input: unknown, source: string): Promise<StateDocument> {
  const looksLikeState = typeof input === 'object' && input !== null && 'collections' in input;
  return looksLikeState
    ? keepStoredSecrets(validateStateDocument(input, services, source), ctx.store, services, source)
    : stateFromFixture(ctx, input, source);
}

/** The document with every id counter at least where the current state has it: an id is never handed out twice. */
function keepCounters(ctx: EmuContext, document: StateDocument): StateDocument {
  const counters = { ...document.counters };
  for (const [name, value] of Object.entries(ctx.store.exportDocument().counters)) if (value > (counters[name] ?? 0)) counters[name] = value;
  return { ...document, counters };
}

async function fixtureState(ctx: EmuContext): Promise<StateDocument | undefined> {
  if (ctx.config.fixtures === 'none') return undefined;
  const path = resolve(ctx.config.fixtures);
  const input = await readJsonFile(path, 'fixture file');
  // The package's own fixtures are checked against their schemas by the tests, not at every start (docs/fixtures.md).
  return path === DEFAULT_FIXTURES ? stateFromFixture(ctx, input, path, { schemasChecked: true }) : documentFromImport(ctx, input, path);
}

const EMPTY_STATE: StateDocument = { schemaVersion: 1, seq: 0, counters: {}, collections: {} };

const replacing = new WeakMap<EmuContext, Promise<unknown>>();

/**
 * Runs whole-state changes (reset, import, restore) one at a time, in the order they were asked: two resets at
 * once end in the state the later one asked for, never a mix.
 */
function exclusive<T>(ctx: EmuContext, work: () => Promise<T>): Promise<T> {
  const done = (replacing.get(ctx) ?? Promise.resolve()).then(work, work);
  replacing.set(ctx, done.catch(() => undefined));
  return done;
}

/** Replaces the whole state (counters kept), then restarts every service's runtime (timers, waiters) on it. */
async function replaceNow(ctx: EmuContext, document: StateDocument): Promise<void> {
  for (const service of services) await service.teardown?.(ctx);
  try {
    await ctx.store.replace(keepCounters(ctx, document));
    ctx.events.emit(STATE_REPLACED);
  } finally {
    // Also when the state could not be replaced: the services run again on the state that stayed.
    for (const service of services) await service.setup?.(ctx);
  }
}

export const replaceState = (ctx: EmuContext, document: StateDocument) => exclusive(ctx, () => replaceNow(ctx, document));

/** `PUT /_emu/state`: a state document or fixture file, checked against the state it replaces (secrets kept). */
export const importState = (ctx: EmuContext, input: unknown, source: string) =>
  exclusive(ctx, async () => replaceNow(ctx, await documentFromImport(ctx, input, source)));

/** Back to the fixtures (or empty): the real clock again, no faults; the journal and id counters go on. */
export function resetState(ctx: EmuContext, options: { empty?: boolean } = {}): Promise<void> {
  return exclusive(ctx, async () => {
    faultsOf(ctx).clear();
    if (ctx.clock instanceof VirtualClock) await ctx.clock.real();
    const document = options.empty ? undefined : await fixtureState(ctx);
    await replaceNow(ctx, document ?? EMPTY_STATE);
  });
}

/** `GET /_emu/openapi.json`, addressed to the host the caller used. */
function openApiRouter(ctx: EmuContext): Router {
  return Router().get('/', (req, res) => {
    const base = `${req.protocol}://${req.get('host')}`;
    res.json(openApiDocument(services, { version: VERSION, serverUrl: base, tokenUrl: `${base}${realmPath(tenantRealm(ctx))}/protocol/openid-connect/token` }));
  });
}

/**
 * The opened store's context, its services not set up yet, and its signing key's promise: a new data directory's RSA
 * key is made on the thread pool meanwhile (and saved once the directory has opened); in memory, when first needed.
 */
async function openStoreContext(config: EmulatorConfig, log: (m: string) => void, readOnly: boolean): Promise<{ ctx: EmuContext; keyReady: Promise<void> }> {
  const pendingKey = config.inMemory ? Promise.resolve(undefined) : readOnly ? readKey(config.dataDir!).then((key) => key && { key, save: undefined }) : loadOrMakeKey(config.dataDir!);
  pendingKey.catch(() => undefined);
  const store = await Store.open({ dir: config.dataDir, inMemory: config.inMemory, compactBytes: config.compactBytes, warn: log, readOnly });
  let key: SigningKey | undefined;
  const keyReady = pendingKey.then(async (made) => {
    if (!made && !config.inMemory) throw new FixtureError(`${config.dataDir} has no signing key yet: start the emulator on it once.`);
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

export async function openContext(config: EmulatorConfig, log: (m: string) => void, readOnly = false): Promise<EmuContext> {
  const { ctx, keyReady } = await openStoreContext(config, log, readOnly);
  try {
    await keyReady;
    for (const service of services) await service.setup?.(ctx);
    return ctx;
  } catch (err) {
    await ctx.store.close();
    throw err;
  }
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen(server.address() as AddressInfo);
    });
  });
}

/** The admin token: the one given (`--admin-token`), else signed with the emulator's key when first needed. */
function adminTokenOf(ctx: EmuContext): () => string {
  let token = ctx.config.adminToken;
  return () => (token ??= signAdminToken(ctx.keys, ctx.clock.now()));
}

/** Starts an emulator: opens (or seeds) the state, mounts every service, listens. The library's entry point. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const config = resolveConfig(options);
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  // The signing key is awaited only before listening: a new directory's key is made while the state is seeded.
  const { ctx, keyReady } = await openStoreContext(config, log, false);
  const { store } = ctx;
  let ready = false;
  let url = '';
  let gateway: Gateway | undefined;
  const startedAt = new Date().toISOString();
  try {
    for (const service of services) await service.setup?.(ctx);
    if (options.import) {
      const path = resolve(options.import);
      await store.replace(await documentFromImport(ctx, await readJsonFile(path, 'import file'), path));
    } else if (store.isEmpty()) {
      const seed = await fixtureState(ctx);
      if (seed) await store.replace(seed);
    }
    gateway = await startGateway(ctx);
    const { mqttPort, mqttUrl } = gateway;
    const issueToken = (request: TokenOptions = {}) => issueTestToken(ctx, { ...request, baseUrl: url });
    const adminToken = adminTokenOf(ctx);
    const app = createApp(ctx, {
      adminToken,
      mounts: [
        {
          path: '/_emu',
          router: controlRouter(ctx, {
            health: () => ({
              // While the store cannot write, the emulator is not ready: 503 with the reason, until a write succeeds again.
              ready: ready && !store.failure,
              ...(store.failure ? { status: 'failing', message: store.failure } : {}),
              version: VERSION,
              url,
              dataDir: config.dataDir ? resolve(config.dataDir) : null,
              inMemory: config.inMemory,
              auth: config.auth,
              defaultTenant: ctx.defaultTenantId(),
              mqtt: { url: mqttUrl, port: mqttPort, auth: config.mqttAuth, onlineEndpoints: onlineEndpointCount(ctx) },
              clock: presentClock(ctx),
              faults: faultsOf(ctx).list(),
              journal: { size: config.journalSize, lastSeq: journalOf(ctx).lastSeq },
              services: services.map((s) => ({ name: s.prefix, title: s.title, url: `${url}/${s.prefix}/api/v1` })),
              pid: process.pid,
              startedAt,
              counts: recordCounts(services, (collection) => store.count(collection)),
            }),
            importState: (input) => importState(ctx, input, 'the imported document'),
            replaceState: (document) => replaceState(ctx, document),
            reset: (resetOptions) => resetState(ctx, resetOptions),
            issueToken,
          }),
        },
        ...services.flatMap((s) => (s.controlPlane ? [{ path: '/_emu', router: s.controlPlane(ctx) }] : [])),
        { path: '/_emu', router: uiRouter(ctx, () => ({ url, mqttUrl, adminToken: config.auth === 'on' ? adminToken() : undefined })) },
        { path: '/_emu/openapi.json', router: openApiRouter(ctx) },
        { path: '/kp1', router: kp1HttpRouter(ctx) },
        { path: '/auth', router: oidcRouter(ctx) },
      ],
    });
    const server = createServer({ keepAliveTimeout: 5000 }, app);
    server.on('clientError', onClientError);
    await keyReady;
    const address = await listen(server, config.port, config.host);
    const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${address.port}`;
    // The lock file is the CLI's way to a running emulator, its admin token included (the file is readable by its owner only).
    store.directoryLock?.update({ url, mqttUrl, ...(config.auth === 'on' ? { adminToken: adminToken() } : {}) });
    ready = true;

    let stopping: Promise<void> | undefined;
    const handle = emulatorHandle(ctx, {
      url,
      port: address.port,
      host: config.host,
      dataDir: config.dataDir ? resolve(config.dataDir) : undefined,
      mqttPort,
      mqttUrl,
      adminToken,
      issueToken: (request) => issueToken(request).token,
      reset: (resetOptions) => resetState(ctx, resetOptions),
      replaceState: (document) => replaceState(ctx, document),
      stop: () =>
        (stopping ??= (async () => {
          ready = false;
          const closed = new Promise<void>((done) => server.close(() => done()));
          ctx.events.emit(EMULATOR_STOPPING);
          server.closeIdleConnections();
          await gateway?.stop();
          for (const service of services) await service.teardown?.(ctx);
          const force = setTimeout(() => server.closeAllConnections(), 5000);
          await closed;
          clearTimeout(force);
          await store.close();
        })()),
    });
    contexts.set(handle, ctx);
    return handle;
  } catch (err) {
    await gateway?.stop();
    for (const service of services) await service.teardown?.(ctx);
    await store.close();
    throw err;
  }
}
