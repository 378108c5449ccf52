import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { StoredAuthority } from './new-authority.js';

/** The file of a data directory's certificate authority: beside `signing-key.json`, mode 600, never exported. */
export const CA_FILE = 'tls-ca.json';

const prepared = new Map<string, Promise<StoredAuthority>>();

function authorityInWorker(): Promise<StoredAuthority> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./authority-worker.js', import.meta.url));
    worker.unref();
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the worker making the certificate authority ended (${code})`)));
  });
}

/**
 * Starts making a new data directory's certificate authority in a worker thread: the CLI calls it before it loads
 * the emulator's modules, so that the ASN.1 library loads and the certificate is made on the other core meanwhile
 * (as the realms' key is made on the thread pool). Nothing is written: the start saves it once the directory has
 * opened. A directory that has an authority already needs nothing.
 */
export function prepareAuthority(dir: string): void {
  const path = resolve(dir);
  if (prepared.has(path) || existsSync(join(path, CA_FILE))) return;
  const pending = authorityInWorker();
  pending.catch(() => undefined);
  prepared.set(path, pending);
}

/** The authority prepared for this directory, if any (taken: a second start makes its own). */
export function takePreparedAuthority(dir: string): Promise<StoredAuthority> | undefined {
  const path = resolve(dir);
  const early = prepared.get(path);
  prepared.delete(path);
  return early;
}
