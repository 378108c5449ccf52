import { createPublicKey, generateKeyPair, generateKeyPairSync, randomUUID, type JsonWebKey } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/** The RS256 key pair that signs every token; made once per data directory. */
export interface SigningKey {
  kid: string;
  privateKeyPem: string;
  publicKeyPem: string;
}

const KEY_FILE = 'signing-key.json';
const generate = promisify(generateKeyPair);

const RSA_OPTIONS = {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
} as const;

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generate('rsa', RSA_OPTIONS);
  return { kid: randomUUID(), privateKeyPem: privateKey, publicKeyPem: publicKey };
}

let processKey: SigningKey | undefined;

/**
 * The key of in-memory emulators, made when a token is first signed or verified (an in-memory start with auth off
 * never pays for it) and shared by every in-memory emulator of the process: tests start many.
 */
export function inMemoryKey(): SigningKey {
  if (!processKey) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', RSA_OPTIONS);
    processKey = { kid: randomUUID(), privateKeyPem: privateKey, publicKeyPem: publicKey };
  }
  return processKey;
}

export async function readKey(dir: string): Promise<SigningKey | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, KEY_FILE), 'utf8')) as SigningKey;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${join(dir, KEY_FILE)} is unreadable: ${(err as Error).message}`);
  }
}

type LoadedKey = { key: SigningKey; save?: () => Promise<void> };

const prepared = new Map<string, Promise<LoadedKey>>();

/**
 * Starts reading (or making) a directory's key ahead of the start that takes it with `loadOrMakeKey`: the CLI calls
 * it before it loads the emulator's modules, so that a new RSA key is made on the thread pool meanwhile.
 */
export function prepareKey(dir: string): void {
  const path = resolve(dir);
  if (prepared.has(path)) return;
  const pending = readOrMakeKey(path);
  pending.catch(() => undefined);
  prepared.set(path, pending);
}

/**
 * The directory's key, or a new one and a function that saves it: the caller saves it only once the directory
 * has opened, so that a refused start leaves the directory as it was.
 */
export function loadOrMakeKey(dir: string): Promise<LoadedKey> {
  const path = resolve(dir);
  const early = prepared.get(path);
  prepared.delete(path);
  return early ?? readOrMakeKey(path);
}

async function readOrMakeKey(dir: string): Promise<LoadedKey> {
  const existing = await readKey(dir);
  if (existing) return { key: existing };
  const key = await newKey();
  return { key, save: () => saveKey(dir, key) };
}

async function saveKey(dir: string, key: SigningKey): Promise<void> {
  await mkdir(dir, { recursive: true });
  const handle = await open(join(dir, KEY_FILE), 'wx', 0o600);
  try {
    await handle.writeFile(JSON.stringify(key, null, 2));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function publicJwk(key: SigningKey): JsonWebKey {
  return { ...createPublicKey(key.publicKeyPem).export({ format: 'jwk' }), kid: key.kid, alg: 'RS256', use: 'sig' };
}
