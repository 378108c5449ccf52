import { resolve } from 'node:path';
import { resolveConfig } from './config.js';
import type { TokenOptions } from './handle.js';
import type { issueTestToken } from './oidc/test-tokens.js';
import type { StateDocument } from './store/index.js';
import type { GeneratedSecret } from './server/control/secrets.js';

// The emulator's modules load with the first directory opened, not with this module: `token --admin` needs none of
// them.

/** The data directory of an emulator that is not running, opened without starting one. */
export interface StoppedEmulator {
  /** The whole state, as `GET /_emu/state` answers it: secrets read `<redacted>` unless `includeSecrets`. */
  exportState(options?: { includeSecrets?: boolean }): StateDocument;
  /**
   * Replaces the whole state with a state document or a fixture file, as `PUT /_emu/state` does; `source` names it in
   * errors.
   */
  /** The secrets it had to make (redacted in an export, defined nowhere else: docs/state.md). */
  importState(input: unknown, source: string): Promise<GeneratedSecret[]>;
  /** A test token signed with the directory's key, as `RunningEmulator.token` signs one; its issuer names `baseUrl`. */
  token(request: TokenOptions & { baseUrl: string }): ReturnType<typeof issueTestToken>;
  /** Ends the services' timers and closes the state (and its lock). */
  close(): Promise<void>;
}

/**
 * Opens a data directory as `fixtures export`, `fixtures import` and `token` do when no emulator holds it. Opened
 * to write, one that a live emulator holds is refused (its lock); `readOnly` (export, tokens) reads what is on disk.
 */
export async function openDataDir(
  dataDir: string,
  options: { readOnly?: boolean; log?: (message: string) => void } = {},
): Promise<StoppedEmulator> {
  const log = options.log ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  const [{ importState }, { openContext, tearDownServices }, { exportedState }, { issueTestToken }] = await Promise.all(
    [
      import('./emulator/state.js'),
      import('./emulator/context.js'),
      import('./server/control/secrets.js'),
      import('./oidc/test-tokens.js'),
    ],
  );
  const ctx = await openContext(resolveConfig({ dataDir: resolve(dataDir) }), log, options.readOnly ?? false);
  return {
    exportState: (options) => exportedState(ctx, options),
    importState: (input, source) => importState(ctx, input, source),
    token: (request) => issueTestToken(ctx, request),
    close: async () => {
      try {
        await tearDownServices(ctx);
      } finally {
        await ctx.store.close();
      }
    },
  };
}

/**
 * Waits, at most 10 s, for a secret file that a running emulator on a new directory writes moments after it is ready
 * (its signing key with auth off, its certificate authority): a script that starts one and at once asks for its admin
 * token or root certificate finds it. Without a running emulator there, nothing is waited for.
 */
async function savedByRunningEmulator(dataDir: string, file: string): Promise<void> {
  const [{ existsSync, watch }, { join }, { readLock }, { SNAPSHOT_FILE }] = await Promise.all([
    import('node:fs'),
    import('node:path'),
    import('./store/lock.js'),
    import('./store/file-names.js'),
  ]);
  const path = join(dataDir, file);
  // An emulator in memory (started with --detach) holds the directory's lock too, but keeps no state, nor secrets, there.
  if (existsSync(path) || !existsSync(join(dataDir, SNAPSHOT_FILE)) || !readLock(dataDir)?.url) return;
  await new Promise<void>((done) => {
    const watcher = watch(dataDir, () => existsSync(path) && finish());
    const timer = setTimeout(finish, 10_000);
    function finish() {
      watcher.close();
      clearTimeout(timer);
      done();
    }
    // Saved between the first look and the watch.
    if (existsSync(path)) finish();
  });
}

/**
 * A token of the control plane (scope `emulator:admin`) signed with the directory's key, as a running emulator on it
 * accepts; undefined where the directory has no key yet (an emulator in memory keeps its admin token in its lock).
 */
export async function adminTokenOf(dataDir: string): Promise<string | undefined> {
  const [{ KEY_FILE, readKey }, { signAdminToken }] = await Promise.all([
    import('./auth/keys.js'),
    import('./auth/tokens.js'),
  ]);
  await savedByRunningEmulator(resolve(dataDir), KEY_FILE);
  const key = await readKey(resolve(dataDir));
  return key ? signAdminToken(key, new Date()) : undefined;
}

/** The root certificate (PEM) of a data directory's local certificate authority; undefined where it has none yet. */
export async function rootCertificateOf(dataDir: string): Promise<string | undefined> {
  const { CA_FILE, readAuthority } = await import('./tls/authority.js');
  await savedByRunningEmulator(resolve(dataDir), CA_FILE);
  return (await readAuthority(resolve(dataDir)))?.certificate;
}
