import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { compatProblem, EmulatorOptionsError } from './server/compat-choices.js';
import { services } from './services/index.js';
import { signAdminToken } from './auth/tokens.js';
import { listeningUrl, resolveConfig, type EmulatorOptions } from './config.js';
import type { EmuContext } from './context.js';
import { openStoreContext, setUpServices, tearDownServices } from './emulator/context.js';
import { httpsTwin, listen, restServer, type RestStatus } from './emulator/rest-server.js';
import { initialState, replaceState, resetState } from './emulator/state.js';
import { startGateway, type Gateway } from './gateway/index.js';
import { prepareWireThread } from './gateway/wire.js';
import { emulatorHandle, type RunningEmulator, type TokenOptions } from './handle.js';
import { EMULATOR_STOPPING } from './server/events.js';
import { issueTestToken } from './oidc/test-tokens.js';
import type { DirectorySecret } from './store/directory-secret.js';
import { directoryAuthority, inMemoryAuthority, type CertificateAuthority } from './tls/authority.js';
import { serverCredentials } from './tls/server-credentials.js';

export type { RunningEmulator, TokenOptions };

const contexts = new WeakMap<RunningEmulator, EmuContext>();

/** The context behind a handle: for the emulator's own tests and CLI, never exported by the package. */
export function internalContext(emulator: RunningEmulator): EmuContext {
  const ctx = contexts.get(emulator);
  if (!ctx) throw new Error('Not an emulator started by startEmulator.');
  return ctx;
}

/** The admin token: the one given (`--admin-token`), else signed with the emulator's key when first needed. */
function adminTokenOf(ctx: EmuContext): () => string {
  let token = ctx.config.adminToken;
  return () => (token ??= signAdminToken(ctx.keys, ctx.clock.now()));
}

interface Running {
  server: Server;
  gateway: Gateway;
  status: RestStatus;
  https?: Server;
  /** A new directory's key and authority, made once the emulator was ready: saved before the directory closes. */
  secrets: readonly ({ settled(): Promise<void> } | undefined)[];
}

/**
 * Answers what was asked already, lets devices go, stops the services, then closes the state (connections forced after
 * 5 s).
 */
async function stopEmulator(ctx: EmuContext, { server, gateway, status, https, secrets }: Running): Promise<void> {
  status.ready = false;
  https?.close();
  https?.closeIdleConnections();
  const closed = new Promise<void>((done) => server.close(() => done()));
  ctx.events.emit(EMULATOR_STOPPING);
  server.closeIdleConnections();
  await gateway.stop();
  await tearDownServices(ctx);
  const force = setTimeout(() => {
    server.closeAllConnections();
    https?.closeAllConnections();
  }, 5000);
  await closed;
  clearTimeout(force);
  await Promise.all(secrets.map((secret) => secret?.settled()));
  await ctx.store.close();
}

/** Starts an emulator: opens (or seeds) the state, mounts every service, listens. The library's entry point. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  // The same check as `start --compat`: a revision no service offers is refused before anything opens.
  const compatError = compatProblem(options.compat ?? {}, services);
  if (compatError) throw new EmulatorOptionsError(compatError);
  const config = resolveConfig(options);
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  // The MQTT wire thread starts while the state opens and the fixtures seed (bench figure 9a).
  prepareWireThread();
  const { ctx, key } = await openStoreContext(config, log, false);
  let gateway: Gateway | undefined;
  let https: Server | undefined;
  let authority: DirectorySecret<CertificateAuthority> | undefined;
  try {
    await setUpServices(ctx);
    const generatedSecrets = await initialState(ctx, options.import);
    const tls = await serverCredentials(ctx);
    // A data directory's authority is read now (a damaged file refuses the start); the process's in-memory one when
    // first asked for: making it loads the ASN.1 library, which a test suite that never uses TLS should not pay for
    // (bench figure 9a).
    if (config.dataDir) authority = await directoryAuthority(ctx);
    const devices = (gateway = await startGateway(ctx, tls));
    const status: RestStatus = { url: '', ready: false };
    const adminToken = adminTokenOf(ctx);
    const issueToken = (request: TokenOptions = {}) => issueTestToken(ctx, { ...request, baseUrl: status.url });
    const server = restServer(ctx, { gateway, status, startedAt: new Date().toISOString(), adminToken, issueToken });
    // With auth on, the lock file carries the admin token, signed with the key: a new directory's is made first.
    if (config.auth === 'on') await key?.made();
    const { port } = await listen(server, config.port, config.host);
    status.url = listeningUrl('http', config.host, port);
    if (config.httpsPort !== undefined) {
      https = httpsTwin(server, await tls());
      const secure = await listen(https, config.httpsPort, config.host).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'EADDRINUSE'
          ? new Error(
              `The HTTPS port ${config.httpsPort} is in use. Pick another with --https-port, or 0 for a free one.`,
            )
          : err;
      });
      status.httpsUrl = listeningUrl('https', config.host, secure.port);
    }
    // The lock file is the CLI's way to a running emulator, its admin token included (the file is readable by its owner
    // only).
    ctx.store.directoryLock?.update({
      url: status.url,
      mqttUrl: gateway.mqttUrl,
      mqttsUrl: gateway.mqttsUrl,
      ...(config.auth === 'on' ? { adminToken: adminToken() } : {}),
    });
    status.ready = true;
    // A new directory's key and authority are made once it is ready, off the main thread, so that a first start does not
    // wait for them (bench figure 1a); whatever needs one sooner makes it at once.
    const secrets = [key, authority];
    for (const secret of secrets) secret?.made().catch((err: Error) => log(err.message));

    let stopping: Promise<void> | undefined;
    const handle = emulatorHandle(ctx, {
      url: status.url,
      port,
      host: config.host,
      dataDir: config.dataDir ? resolve(config.dataDir) : undefined,
      mqttPort: gateway.mqttPort,
      mqttUrl: gateway.mqttUrl,
      mqttsPort: gateway.mqttsPort,
      mqttsUrl: gateway.mqttsUrl,
      httpsUrl: status.httpsUrl,
      caCertificate: () => (authority?.now() ?? inMemoryAuthority()).certificate,
      adminToken,
      issueToken: (request) => issueToken(request).token,
      reset: (resetOptions) => resetState(ctx, resetOptions),
      replaceState: (document) => replaceState(ctx, document),
      generatedSecrets,
      stop: () => (stopping ??= stopEmulator(ctx, { server, gateway: devices, status, https, secrets })),
    });
    contexts.set(handle, ctx);
    return handle;
  } catch (err) {
    https?.close();
    await gateway?.stop();
    await tearDownServices(ctx);
    await Promise.all([key?.settled(), authority?.settled()]);
    await ctx.store.close();
    throw err;
  }
}
