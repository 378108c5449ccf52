import { createPublicKey, generateKeyPair, generateKeyPairSync, randomUUID, type JsonWebKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DirectorySecret } from '../store/directory-secret.js';
import { replaceFileDurably } from '../store/snapshot-file.js';

/** The RS256 key pair that signs every token; made once per data directory. */
export interface SigningKey {
  kid: string;
  privateKeyPem: string;
  publicKeyPem: string;
}

/** The file of a data directory's signing key (mode 600). */
export const KEY_FILE = 'signing-key.json';
const generate = promisify(generateKeyPair);

const RSA_OPTIONS = {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
} as const;

type PemPair = { privateKey: string; publicKey: string };
const keyOf = ({ privateKey, publicKey }: PemPair): SigningKey => ({
  kid: randomUUID(),
  privateKeyPem: privateKey,
  publicKeyPem: publicKey,
});
/** A new key, made on the thread pool (an RSA key takes 100-300 ms of CPU: a search for primes). */
const newKey = async () => keyOf(await generate('rsa', RSA_OPTIONS));
const newKeyNow = () => keyOf(generateKeyPairSync('rsa', RSA_OPTIONS));

let processKey: SigningKey | undefined;

/**
 * The key of in-memory emulators, made when a token is first signed or verified (an in-memory start with auth off
 * never pays for it) and shared by every in-memory emulator of the process: tests start many.
 */
export function inMemoryKey(): SigningKey {
  return (processKey ??= newKeyNow());
}

export async function readKey(dir: string): Promise<SigningKey | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, KEY_FILE), 'utf8')) as SigningKey;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${join(dir, KEY_FILE)} is unreadable: ${(err as Error).message}`);
  }
}

const prepared = new Map<string, Promise<SigningKey>>();

/**
 * Starts making a new directory's key on the thread pool for a start that waits for it (auth on: the lock file
 * carries the admin token, signed with it): the CLI calls it before it loads the emulator's modules.
 */
export function prepareKey(dir: string): void {
  const path = resolve(dir);
  if (prepared.has(path) || existsSync(join(path, KEY_FILE))) return;
  const pending = newKey();
  pending.catch(() => undefined);
  prepared.set(path, pending);
}

/**
 * A data directory's key: the one it has, else one made once for it (the one `prepareKey` started, if any). A new key
 * is saved when first made or asked for, after the directory has opened, so a refused start leaves it as it was.
 */
export function directoryKey(
  dir: string,
  existing: SigningKey | undefined,
  warn: (message: string) => void,
): DirectorySecret<SigningKey> {
  const path = resolve(dir);
  const early = prepared.get(path);
  prepared.delete(path);
  return new DirectorySecret(
    {
      what: 'signing key',
      make: () => early ?? newKey(),
      makeNow: newKeyNow,
      save: (key) => replaceFileDurably(join(path, KEY_FILE), JSON.stringify(key, null, 2)),
      warn,
    },
    existing,
  );
}

export function publicJwk(key: SigningKey): JsonWebKey {
  return { ...createPublicKey(key.publicKeyPem).export({ format: 'jwk' }), kid: key.kid, alg: 'RS256', use: 'sig' };
}
