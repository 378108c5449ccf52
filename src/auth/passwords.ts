import { randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords are kept only as salted scrypt hashes, never in clear: credentials manager, identity and access
 * manager and the realms' fixture users all go through here. A hash names its own parameters
 * (`scrypt$N$r$p$<salt>$<key>`, base64url), so a stored or imported hash stays verifiable if the defaults change.
 */

const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const PREFIX = 'scrypt';

/** What a stored hash looks like: the record schemas of the collections that keep one require it. */
export const PASSWORD_HASH_PATTERN = '^scrypt\\$\\d+\\$\\d+\\$\\d+\\$[A-Za-z0-9_-]+\\$[A-Za-z0-9_-]+$';
const HASH = new RegExp(PASSWORD_HASH_PATTERN);

export const isPasswordHash = (value: string): boolean => HASH.test(value);

/**
 * A collection's record schema whose `passwordHash` must be a hash: a state import cannot bring a clear password in.
 */
export function withPasswordHash<S extends Record<string, unknown>>(schema: S): S {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return { ...schema, properties: { ...properties, passwordHash: { type: 'string', pattern: PASSWORD_HASH_PATTERN } } };
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, n = N): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, n, R, P);
  return [PREFIX, n, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; false for anything that is not a hash of ours. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (!isPasswordHash(stored)) return false;
  const [, n, r, p, salt, key] = stored.split('$');
  const expected = Buffer.from(key, 'base64url');
  // Parameters from an imported hash are bounded: a hand-made one must not tie up the thread pool.
  if (Number(n) > 1 << 20 || Number(r) > 32 || Number(p) > 16 || expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return timingSafeEqual(actual, expected);
}

// Fixture passwords are the same few strings at every start and reset of every emulator in a process: each is
// hashed once (one salt per process), so that seeding does not cost a scrypt per user each time.
const fixtureHashes = new Map<string, Promise<string>>();

// A password given in clear in a fixture is written in that file for anyone who reads it: a costly hash would
// protect nothing, and cost every start tens of milliseconds per user. It is hashed at a lower cost (the hash names
// its parameters, so it verifies like any other); passwords set through the API keep the full cost.
const FIXTURE_N = 1024;

/** A fixture's or an import's password field: a hash is kept as it is, a clear password is hashed. */
export function storedPassword(passwordOrHash: string): Promise<string> {
  if (isPasswordHash(passwordOrHash)) return Promise.resolve(passwordOrHash);
  let hash = fixtureHashes.get(passwordOrHash);
  if (!hash) {
    if (fixtureHashes.size >= 1000) fixtureHashes.clear();
    fixtureHashes.set(passwordOrHash, (hash = hashPassword(passwordOrHash, FIXTURE_N)));
  }
  return hash;
}

const ALPHANUMERIC = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A random string of letters and digits (no look-alikes such as 0/O, 1/l/I): generated passwords and usernames. */
export function randomText(length: number, alphabet = ALPHANUMERIC): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[randomInt(alphabet.length)];
  return text;
}
