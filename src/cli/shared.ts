import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { START_DEFAULTS } from '../client/defaults.js';
import { readEmulatorLock, type EmulatorLock } from '../client/emulator-lock.js';

/** A CLI failure the user can fix: printed as one line on stderr, with this exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** An error's message (often a sentence of the emulator's, with its full stop) followed by what to do about it. */
export const withHint = (message: string, hint: string): string => `${message.replace(/\.$/, '')}. ${hint}`;

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535.');
  return port;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return n;
}

export function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number of 0 or more.');
  return Number(value);
}

/** Removes a data directory this run made, after the run failed before anything was kept in it. */
export function removeDataDir(dir: string): void {
  rmSync(resolve(dir), { recursive: true, force: true });
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(/[\s,]+/).filter(Boolean)];
}

/** `--data-dir` (`--data` still works: the value is `options.data`); `call` alone names it `--data-dir` only. */
export const dataOption = () =>
  new Option('--data-dir, --data <dir>', 'data directory of the emulator')
    .env('PLATFORM_EMU_DATA')
    .default(START_DEFAULTS.dataDir);

export const urlOption = () =>
  new Option('--url <url>', 'URL of a running emulator (default: the one that holds --data-dir, if any)').env(
    'PLATFORM_EMU_URL',
  );

/** Who holds the data directory (pid, URLs, admin token), if a live process does. */
export function lockOf(options: { data?: string }): EmulatorLock | undefined {
  return options.data ? readEmulatorLock(options.data) : undefined;
}

/** The running emulator to talk to: `--url`, or the one whose lock holds the data directory. */
export function runningUrl(options: { url?: string; data?: string }): string | undefined {
  if (options.url) return options.url.replace(/\/$/, '');
  return lockOf(options)?.url;
}

/**
 * The admin token for the control plane of the emulator at `url` (needed with `--auth on`): `PLATFORM_EMU_ADMIN_TOKEN`,
 * else the one in the lock of `--data` when that lock names this URL.
 */
export function adminTokenFor(url: string, options: { data?: string } = {}): string | undefined {
  if (process.env.PLATFORM_EMU_ADMIN_TOKEN) return process.env.PLATFORM_EMU_ADMIN_TOKEN;
  const lock = lockOf(options);
  return lock?.url === url.replace(/\/$/, '') ? lock.adminToken : undefined;
}

/**
 * A JSON request to a running emulator's control plane through the one client (`src/client`), loaded only when needed.
 */
export async function emulatorJson<T = unknown>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  target: { data?: string } = {},
): Promise<T> {
  const { EmulatorClient } = await import('../client/http-client.js');
  const client = new EmulatorClient(url);
  client.adminToken = adminTokenFor(url, target);
  return (await client.json<T>(method, path, body)).body;
}
