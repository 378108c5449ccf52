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

/**
 * What a stored hash looks like: the record schemas of the collections that keep one require it. Its parameters are
 * bounded to what a login can afford: N a power of two up to 2^15, r up to 8, p 1 or 2 (at most 32 MiB and four
 * times the default's work); an imported hash outside them is refused, never run.
 */
export const PASSWORD_HASH_PATTERN =
  '^scrypt\\$(2|4|8|16|32|64|128|256|512|1024|2048|4096|8192|16384|32768)\\$[1-8]\\$[12]\\$[A-Za-z0-9_-]+\\$' +
  '[A-Za-z0-9_-]+$';
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

/** Password checks running at once (each holds one thread of libuv's pool of four, which the disk writes need too). */
export const PASSWORD_CHECKS_RUNNING = 2;
/** Password checks that may wait for one of those; past them a check is refused at once (`PasswordChecksBusy`). */
export const PASSWORD_CHECKS_WAITING = 32;

/** More password checks than the emulator runs or queues: the login is refused as "try later", never stalls writes. */
export class PasswordChecksBusy extends Error {
  override name = 'PasswordChecksBusy';
  readonly status = 503;
  constructor() {
    super(
      `Too many password checks at once (${PASSWORD_CHECKS_RUNNING} running, ${PASSWORD_CHECKS_WAITING} ` +
        `waiting); try again later.`,
    );
  }
}

let running = 0;
const waiting: Array<() => void> = [];

async function bounded<T>(task: () => Promise<T>): Promise<T> {
  if (running >= PASSWORD_CHECKS_RUNNING) {
    if (waiting.length >= PASSWORD_CHECKS_WAITING) throw new PasswordChecksBusy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await task();
  } finally {
    // The slot passes straight to the next waiting check, or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** Hashed in place of a stored hash when there is none (an unknown username): same parameters as a hash made now. */
const DECOY = [
  PREFIX,
  N,
  R,
  P,
  Buffer.alloc(16).toString('base64url'),
  Buffer.alloc(KEY_LENGTH).toString('base64url'),
].join('$');

/**
 * Whether `password` is the one `stored` was made from; false for anything that is not a hash of ours. Without a
 * stored hash (an unknown user) the check costs what a known user's does, so that timing does not tell them apart.
 * Throws `PasswordChecksBusy` when too many checks are under way.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const hash = stored !== undefined && isPasswordHash(stored) ? stored : DECOY;
  const [, n, r, p, salt, key] = hash.split('$');
  const expected = Buffer.from(key, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await bounded(() => derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p)));
  return hash !== DECOY && timingSafeEqual(actual, expected);
}

// Fixture passwords are the same few strings at every start and reset of every emulator in a process: each is
// hashed once (one salt per process), so that seeding does not cost a scrypt per user each time.
const fixtureHashes = new Map<string, Promise<string>>();

// A password given in clear in a fixture is written in that file for anyone who reads it: a costly hash would
// protect nothing, and cost every start milliseconds per user (N=1024 cost a start on the default fixtures about 45 ms,
// the pool's threads shared with the start's key and module reads). It is hashed at N=16, microseconds (the hash
// names its parameters, so it verifies like any other); passwords set through the API keep the full cost.
const FIXTURE_N = 16;

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
