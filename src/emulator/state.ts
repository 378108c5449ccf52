import { resolve } from 'node:path';
import { hashPassword } from '../auth/passwords.js';
import { VirtualClock } from '../clock.js';
import { DEFAULT_FIXTURES } from '../config.js';
import type { EmuContext } from '../context.js';
import { readJsonFile, seedFixture, type SeedOptions } from '../seed/load.js';
import { validateStateDocument } from '../seed/validate.js';
import { keepStoredSecrets, lacksStoredSecrets, REDACTED, type GeneratedSecret } from '../server/control/secrets.js';
import { STATE_REPLACED } from '../server/events.js';
import { faultsOf } from '../server/faults.js';
import { services } from '../services/index.js';
import { Store, type StateDocument } from '../store/index.js';
import { createContext, setUpServices, tearDownServices } from './context.js';

/** Builds the state a fixture describes in a scratch store, so that a bad record changes nothing. */
async function stateFromFixture(
  ctx: EmuContext,
  fixture: unknown,
  source: string,
  options?: SeedOptions,
): Promise<StateDocument> {
  const scratch = createContext(ctx.config, await Store.open({ inMemory: true }), undefined, ctx.log);
  // Dated by the emulator's clock: a fixture imported at a set time has records of that time.
  scratch.clock = ctx.clock;
  await setUpServices(scratch);
  await seedFixture(scratch, fixture, source, options);
  return scratch.store.exportDocument();
}

/**
 * A state document (`fixtures export`) or a fixture file, checked before anything is replaced. Secrets an export
 * redacted keep their stored values; with `generated` (an import, a start, a reset), one with no stored value is
 * taken from the fixtures' record with the same id, else made anew and collected there (docs/state.md).
 */
export async function documentFromImport(
  ctx: EmuContext,
  input: unknown,
  source: string,
  generated?: GeneratedSecret[],
): Promise<StateDocument> {
  const looksLikeState = typeof input === 'object' && input !== null && 'collections' in input;
  if (!looksLikeState) return stateFromFixture(ctx, input, source);
  const document = input as StateDocument;
  // Secrets first: a kept password hash is checked like any other.
  if (!generated)
    return validateStateDocument(keepStoredSecrets(document, ctx.store, services, source), services, source);
  // A fixture file that is itself a redacted export defines no secrets: it is read without a fallback, and skipped.
  const fixture = lacksStoredSecrets(document, ctx.store, services)
    ? await fixtureState(ctx).catch(() => undefined)
    : undefined;
  const seeded = keepStoredSecrets(document, ctx.store, services, source, { fixture, generated });
  await hashGeneratedPasswords(seeded, generated);
  return validateStateDocument(seeded, services, source);
}

/**
 * A password hash nothing could fill is stored as the hash of a new password, and that password is what is shown
 * once (`field: 'password'`): a random string where a hash belongs would be refused, and useless to log in with.
 */
async function hashGeneratedPasswords(document: StateDocument, generated: GeneratedSecret[]): Promise<void> {
  for (const secret of generated) {
    if (secret.field !== 'passwordHash') continue;
    const record = document.collections[secret.collection]?.[secret.id];
    if (record) record.passwordHash = await hashPassword(secret.value);
    secret.field = 'password';
  }
}

/** The document with every id counter at least where the current state has it: an id is never handed out twice. */
function keepCounters(ctx: EmuContext, document: StateDocument): StateDocument {
  const counters = { ...document.counters };
  for (const [name, value] of Object.entries(ctx.store.counters()))
    if (value > (counters[name] ?? 0)) counters[name] = value;
  return { ...document, counters };
}

/** The state `--fixtures` describes (undefined for `none`). */
async function fixtureState(ctx: EmuContext, generated?: GeneratedSecret[]): Promise<StateDocument | undefined> {
  if (ctx.config.fixtures === 'none') return undefined;
  const path = resolve(ctx.config.fixtures);
  const input = await readJsonFile(path, 'fixture file');
  // The package's own fixtures are checked against their schemas by the tests, not at every start (docs/fixtures.md).
  return path === DEFAULT_FIXTURES
    ? stateFromFixture(ctx, input, path, { schemasChecked: true })
    : documentFromImport(ctx, input, path, generated);
}

const EMPTY_STATE: StateDocument = { schemaVersion: 1, seq: 0, counters: {}, collections: {} };

const replacing = new WeakMap<EmuContext, Promise<unknown>>();

/**
 * Runs whole-state changes (reset, import, restore) one at a time, in the order they were asked: two resets at
 * once end in the state the later one asked for, never a mix.
 */
function exclusive<T>(ctx: EmuContext, work: () => Promise<T>): Promise<T> {
  const done = (replacing.get(ctx) ?? Promise.resolve()).then(work, work);
  replacing.set(
    ctx,
    done.catch(() => undefined),
  );
  return done;
}

/**
 * Replaces the whole state (counters kept), then restarts every service's runtime (timers, waiters) on it. `checked`:
 * the document comes from `documentFromImport` or `fixtureState`, which check it as the store does.
 */
async function replaceNow(ctx: EmuContext, document: StateDocument, checked = false): Promise<void> {
  await tearDownServices(ctx);
  try {
    await ctx.store.replace(keepCounters(ctx, document), { checked });
    ctx.events.emit(STATE_REPLACED);
  } finally {
    // Also when the state could not be replaced: the services run again on the state that stayed.
    await setUpServices(ctx);
  }
}

export const replaceState = (ctx: EmuContext, document: StateDocument) =>
  exclusive(ctx, () => replaceNow(ctx, document));

/**
 * `PUT /_emu/state`: a state document or fixture file, checked against the state it replaces (secrets kept); the
 * secrets it had to make.
 */
export const importState = (ctx: EmuContext, input: unknown, source: string): Promise<GeneratedSecret[]> =>
  exclusive(ctx, async () => {
    const generated: GeneratedSecret[] = [];
    await replaceNow(ctx, await documentFromImport(ctx, input, source, generated), true);
    return generated;
  });

/** Tells, once, the secrets an import had to make (they were redacted in the export and nowhere else). */
export function logGeneratedSecrets(log: (message: string) => void, generated: readonly GeneratedSecret[]): void {
  for (const { collection, id, field, value } of generated) {
    log(
      `collections.${collection}["${id}"].${field} was ${REDACTED} in the export and is defined nowhere else: ` +
        `it is now ${value}`,
    );
  }
}

/** Back to the fixtures (or empty): the real clock again, no faults; the journal and id counters go on. */
export function resetState(ctx: EmuContext, options: { empty?: boolean } = {}): Promise<void> {
  return exclusive(ctx, async () => {
    faultsOf(ctx).clear();
    if (ctx.clock instanceof VirtualClock) await ctx.clock.real();
    const generated: GeneratedSecret[] = [];
    const document = options.empty ? undefined : await fixtureState(ctx, generated);
    await replaceNow(ctx, document ?? EMPTY_STATE, true);
    logGeneratedSecrets(ctx.log, generated);
  });
}

/**
 * The state a start begins with: the `--import` file, else (for a new data directory) the fixtures; the secrets
 * that had to be made for it.
 */
export async function initialState(ctx: EmuContext, importPath: string | undefined): Promise<GeneratedSecret[]> {
  const generated: GeneratedSecret[] = [];
  if (importPath) {
    const path = resolve(importPath);
    const document = await documentFromImport(ctx, await readJsonFile(path, 'import file'), path, generated);
    await ctx.store.replace(document, { checked: true });
  } else if (ctx.store.isEmpty()) {
    const seed = await fixtureState(ctx, generated);
    if (seed) await ctx.store.replace(seed, { checked: true });
  }
  return generated;
}
