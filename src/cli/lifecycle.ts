import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GeneratedSecret, RunningEmulator } from '../index.js';
import type { DirectoryLock } from '../store/lock.js';
import { CliError } from './shared.js';

/** The file a detached emulator writes its output to, in its data directory. */
export const LOG_FILE = 'emulator.log';

/** What `start --json`, `start --detach` and `exec` tell a script about a ready emulator. */
export interface ReadyInfo {
  url: string;
  mqttUrl: string;
  port: number;
  mqttPort: number;
  /** MQTT over TLS. */
  mqttsUrl: string;
  mqttsPort: number;
  pid: number;
  /** null in memory. */
  dataDir: string | null;
  /** With `--auth on`: the bearer token of the control plane (`/_emu`). */
  adminToken?: string;
  /**
   * Secrets the start's import had to make (redacted in the export, defined nowhere else); only when there are some.
   */
  generatedSecrets?: GeneratedSecret[];
}

/** One line per secret an import made: `collection["id"].field = value`. */
export const generatedSecretLines = (generated: readonly GeneratedSecret[]): string[] =>
  generated.map(({ collection, id, field, value }) => `${collection}["${id}"].${field} = ${value}`);

/**
 * The ready line, and with auth on the admin token kept in the lock of the data directory (readable by its owner
 * only): how the CLI's other commands reach the control plane of an emulator they did not start.
 */
export async function readyInfo(emulator: RunningEmulator, auth: string, runLock?: DirectoryLock): Promise<ReadyInfo> {
  const info: ReadyInfo = {
    url: emulator.url,
    mqttUrl: emulator.mqttUrl,
    port: emulator.port,
    mqttPort: emulator.mqttPort,
    mqttsUrl: emulator.mqttsUrl,
    mqttsPort: emulator.mqttsPort,
    pid: process.pid,
    dataDir: emulator.dataDir ?? null,
  };
  if (auth === 'on') info.adminToken = emulator.adminToken;
  if (emulator.generatedSecrets.length > 0) info.generatedSecrets = [...emulator.generatedSecrets];
  const { internalContext } = await import('../emulator.js');
  const lock = runLock ?? internalContext(emulator).store.directoryLock;
  lock?.update({
    url: emulator.url,
    mqttUrl: emulator.mqttUrl,
    mqttsUrl: emulator.mqttsUrl,
    ...(info.adminToken ? { adminToken: info.adminToken } : {}),
  });
  return info;
}

/** The whole state as `fixtures export --include-secrets` writes it, replaced in one rename. */
function writeExport(emulator: RunningEmulator, file: string, document: unknown): void {
  const path = resolve(file);
  const temp = `${path}.${process.pid}.tmp`;
  try {
    // Owner-only like state.json: it holds client secrets in clear.
    writeFileSync(temp, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw new CliError(
      `The emulator at ${emulator.url} stopped, but the state could not be written to ${path}: ` +
        `${(err as Error).message}`,
    );
  }
}

/** A clean stop: in-flight requests finish, the state is durable, then `--export-on-exit` is written. */
export async function stopEmulator(emulator: RunningEmulator, exportOnExit: string | undefined): Promise<void> {
  await emulator.stop();
  if (!exportOnExit) return;
  // Read after the stop: every request the emulator accepted is in it.
  writeExport(emulator, exportOnExit, emulator.exportState({ includeSecrets: true }));
}
