import { randomUUID } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { hashPassword, randomText, verifyPassword } from '../../auth/passwords.js';
import { CREDENTIAL_CHANGED, type CredentialChange } from '../../server/events.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type { basicCredentialRecord, BasicCredentialsCreate } from './schemas.js';

export const BASIC_CREDENTIALS = collection<BasicCredential>('basic-credentials').index('username', (c) => c.username);

export type CredentialState = 'Active' | 'Inactive' | 'Suspended' | 'Revoked';

/**
 * `passwordHash`: `src/auth/passwords.ts`, the password itself is never stored. The record schema leaves `state` a
 * string and `lastUseDate` out, and narrowing it would refuse imports it takes today: the type says what we write.
 */
export type BasicCredential = FromSchema<typeof basicCredentialRecord> & {
  state: CredentialState;
  lastUseDate?: string;
};

/**
 * The permitted moves of `PATCH /basic-credentials/{id}/state` (the spec leaves them to us): Revoked is final,
 * Inactive is only where a credential starts. A move to the state it is in already changes nothing.
 */
export const PERMITTED_MOVES: Record<CredentialState, readonly CredentialState[]> = {
  Inactive: ['Active', 'Suspended', 'Revoked'],
  Active: ['Suspended', 'Revoked'],
  Suspended: ['Active', 'Revoked'],
  Revoked: [],
};

/** Inactive (never used) and Active (used) credentials let a device in; Suspended and Revoked do not. */
const usable = (state: CredentialState) => state === 'Active' || state === 'Inactive';

// Lowercase letters and digits without look-alikes: 32^12 usernames, far over the spec's two million.
const USERNAME_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const generatedUsername = () => randomText(12, USERNAME_ALPHABET);
const generatedPassword = () => randomText(24);

/** Usernames are unique within a tenant (spec 3: "tenant-wide unique"); two tenants may hold the same one. */
export function findCredentialByUsername(
  ctx: EmuContext,
  tenantId: string,
  username: string,
): BasicCredential | undefined {
  return BASIC_CREDENTIALS.lookup(ctx, 'username', username).find((c) => c.tenantId === tenantId);
}

/**
 * The credential an MQTT login names (docs/services/credentials-manager.md): `<tenantId>/<username>`, or a bare
 * username that exactly one tenant holds. A bare username two tenants hold names neither.
 */
export function credentialOfLogin(ctx: EmuContext, login: string): BasicCredential | undefined {
  const slash = login.indexOf('/');
  if (slash > 0) {
    const named = findCredentialByUsername(ctx, login.slice(0, slash), login.slice(slash + 1));
    if (named) return named;
  }
  const holders = BASIC_CREDENTIALS.lookup(ctx, 'username', login);
  return holders.length === 1 ? holders[0] : undefined;
}

/** Generated usernames are new to every tenant, so that a device may log in with the bare username. */
const usernameTaken = (ctx: EmuContext, username: string) =>
  BASIC_CREDENTIALS.lookup(ctx, 'username', username).length > 0;

const byCreation = (a: BasicCredential, b: BasicCredential) =>
  a.createdDate.localeCompare(b.createdDate) || a.username.localeCompare(b.username);

export function listBasicCredentials(ctx: EmuContext, tenantId: string): BasicCredential[] {
  return [...BASIC_CREDENTIALS.values(ctx)].filter((c) => c.tenantId === tenantId).sort(byCreation);
}

/** The tenant's credential; another tenant's is as absent as one that does not exist. */
export function requireBasicCredential(ctx: EmuContext, tenantId: string, id: string): BasicCredential {
  const credential = BASIC_CREDENTIALS.get(ctx, id);
  if (!credential || credential.tenantId !== tenantId) throw notFound(`There are no basic credentials ${id}.`);
  return credential;
}

/**
 * Usernames are printable ASCII without space, `:` and `@`; passwords printable ASCII, space included
 * (spec 1, Limits). The lengths are the schema's.
 */
export function checkCharacters(input: { username?: string; password?: string }): void {
  const badUsername =
    input.username === undefined
      ? undefined
      : [...input.username].find((c) => c < '!' || c > '~' || c === ':' || c === '@');
  if (badUsername !== undefined)
    throw badRequest(
      `username must be printable ASCII without spaces, ":" or "@"; it holds ${JSON.stringify(badUsername)}.`,
    );
  const badPassword = input.password === undefined ? undefined : [...input.password].find((c) => c < ' ' || c > '~');
  if (badPassword !== undefined)
    throw badRequest('password must be printable ASCII (spaces allowed); it holds another character.');
}

/** The body of `POST /basic-credentials`; fixtures give a `state` too. */
export type NewBasicCredential = BasicCredentialsCreate & { state?: CredentialState };

/** A new credential record and the password it was made with (generated when absent). */
export async function newBasicCredential(
  ctx: EmuContext,
  tenantId: string,
  input: NewBasicCredential,
  hash = hashPassword,
) {
  checkCharacters(input);
  let username = input.username;
  if (username === undefined) {
    do username = generatedUsername();
    while (usernameTaken(ctx, username));
  } else if (findCredentialByUsername(ctx, tenantId, username)) {
    throw conflict(`The username ${username} is already registered in tenant ${tenantId}.`);
  }
  const password = input.password ?? generatedPassword();
  const now = ctx.clock.nowIso();
  const credential: BasicCredential = {
    tenantId,
    id: randomUUID(),
    username,
    passwordHash: await hash(password),
    state: input.state ?? 'Inactive',
    createdDate: now,
    updatedDate: now,
  };
  return { credential, password };
}

/** `POST /basic-credentials`: Inactive, the password returned this once; 409 for a taken username. */
export async function createBasicCredential(ctx: EmuContext, tenantId: string, input: NewBasicCredential) {
  const { credential, password } = await newBasicCredential(ctx, tenantId, input);
  // The hash took a while: another request may have taken the username meanwhile.
  if (findCredentialByUsername(ctx, tenantId, credential.username))
    throw conflict(`The username ${credential.username} is already registered in tenant ${tenantId}.`);
  await BASIC_CREDENTIALS.put(ctx, credential.id, credential);
  return { credential, password };
}

/** `PATCH /basic-credentials/{id}/state`: 400 for a move the table above does not permit. */
export async function changeCredentialState(
  ctx: EmuContext,
  tenantId: string,
  id: string,
  state: CredentialState,
): Promise<void> {
  const credential = requireBasicCredential(ctx, tenantId, id);
  if (credential.state === state) return;
  if (!PERMITTED_MOVES[credential.state].includes(state)) {
    const allowed = PERMITTED_MOVES[credential.state];
    throw badRequest(
      `Basic credentials in state ${credential.state} cannot move to ` +
        `${state}${allowed.length ? `; permitted: ${allowed.join(', ')}` : ' (Revoked is final)'}.`,
    );
  }
  await BASIC_CREDENTIALS.put(ctx, id, { ...credential, state, updatedDate: ctx.clock.nowIso() });
  ctx.events.emit(CREDENTIAL_CHANGED, { kind: 'basic', id, tenantId, state } satisfies CredentialChange);
}

function unrevoked(ctx: EmuContext, tenantId: string, id: string): BasicCredential {
  const credential = requireBasicCredential(ctx, tenantId, id);
  if (credential.state === 'Revoked')
    throw badRequest(`Basic credentials ${id} are revoked: they cannot get a new password.`);
  return credential;
}

/** `PATCH /basic-credentials/{id}/password`: the new password (generated when absent), returned this once. */
export async function changeCredentialPassword(
  ctx: EmuContext,
  tenantId: string,
  id: string,
  wanted?: string,
): Promise<string> {
  unrevoked(ctx, tenantId, id);
  checkCharacters({ password: wanted });
  const password = wanted ?? generatedPassword();
  const passwordHash = await hashPassword(password);
  // Read again after the hash: the credential may have changed meanwhile.
  const credential = unrevoked(ctx, tenantId, id);
  await BASIC_CREDENTIALS.put(ctx, id, { ...credential, passwordHash, updatedDate: ctx.clock.nowIso() });
  return password;
}

/**
 * A device's MQTT login: a username and password of basic credentials in state Inactive or Active. The first use
 * makes Inactive credentials Active; every use sets `lastUseDate`. Suspended, Revoked, unknown or a wrong password
 * is refused.
 */
export async function checkMqttLogin(ctx: EmuContext, login: string, password: string): Promise<'ok' | 'refused'> {
  const found = credentialOfLogin(ctx, login);
  // An unknown username's check costs what a known one's does.
  const valid = await verifyPassword(password, found?.passwordHash);
  if (!found || !usable(found.state) || !valid) return 'refused';
  // Read again after the hash: a state or password change may have landed meanwhile.
  const credential = BASIC_CREDENTIALS.get(ctx, found.id);
  if (!credential || !usable(credential.state) || credential.passwordHash !== found.passwordHash) return 'refused';
  const now = ctx.clock.nowIso();
  const firstUse = credential.state === 'Inactive' ? { state: 'Active' as const, updatedDate: now } : {};
  await BASIC_CREDENTIALS.put(ctx, credential.id, { ...credential, ...firstUse, lastUseDate: now });
  return 'ok';
}
