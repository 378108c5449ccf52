import { randomBytes } from 'node:crypto';
import { FixtureError } from '../../seed/errors.js';
import { isPlainObject, userKeyed, type StateDocument, type StoredRecord, type Store } from '../../store/index.js';
import type { ServiceDescriptor } from '../../contract.js';
import type { EmuContext } from '../../context.js';

/** What an export shows instead of a secret; on import it means "keep the stored value". */
export const REDACTED = '<redacted>';

/** Collection → secret field names, as the services declare them (`secretFields`). */
function secretFields(services: readonly ServiceDescriptor[]): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const service of services) {
    for (const [collection, names] of Object.entries(service.secretFields ?? {}))
      fields.set(collection, [...(fields.get(collection) ?? []), ...names]);
  }
  return fields;
}

function mapSecrets(
  document: StateDocument,
  services: readonly ServiceDescriptor[],
  replace: (collection: string, id: string, field: string, value: unknown) => unknown,
): StateDocument {
  if (!isPlainObject(document) || !isPlainObject(document.collections)) return document;
  const collections = { ...document.collections };
  for (const [collection, names] of secretFields(services)) {
    const records = collections[collection];
    if (!records) continue;
    // Runs before the import's checks: what is not a record is left for them to refuse.
    if (!isPlainObject(records)) continue;
    const copy = userKeyed<StoredRecord>();
    for (const [id, record] of Object.entries(records)) {
      let next = record;
      if (!isPlainObject(record)) {
        copy[id] = record;
        continue;
      }
      for (const field of names) {
        if (!(field in record)) continue;
        const value = replace(collection, id, field, record[field]);
        if (value !== record[field]) next = { ...next, [field]: value };
      }
      copy[id] = next;
    }
    collections[collection] = copy;
  }
  return { ...document, collections };
}

/**
 * The document with every declared secret replaced by `<redacted>`, and the collections of secret records left out
 * (the records themselves are not touched).
 */
export function redactSecrets(document: StateDocument, services: readonly ServiceDescriptor[]): StateDocument {
  const redacted = mapSecrets(document, services, () => REDACTED);
  for (const name of services.flatMap((s) => s.secretCollections ?? [])) delete redacted.collections[name];
  return redacted;
}

/** The whole state as an export shows it: secrets `<redacted>` unless `includeSecrets`. */
export function exportedState(
  ctx: EmuContext,
  { includeSecrets = false }: { includeSecrets?: boolean } = {},
): StateDocument {
  const document = ctx.store.exportDocument();
  return includeSecrets ? document : redactSecrets(document, ctx.services);
}

/** A secret an import made: the export redacted it, and neither the stored state nor the fixtures held it. */
export interface GeneratedSecret {
  collection: string;
  id: string;
  field: string;
  value: string;
}

/** Where a redacted secret is filled from when the stored state has none (an export seeding a new data directory). */
export interface SecretFallback {
  /** The state the emulator's fixture file builds: the secret of the record with the same id, if it defines one. */
  fixture?: StateDocument;
  /** Collects the secrets that had to be made, to be printed once. */
  generated: GeneratedSecret[];
}

/** Whether some redacted secret of the document has no stored value to keep (then the fixtures are consulted). */
export function lacksStoredSecrets(
  document: StateDocument,
  store: Store,
  services: readonly ServiceDescriptor[],
): boolean {
  let lacking = false;
  mapSecrets(document, services, (collection, id, field, value) => {
    if (value === REDACTED && store.get(collection, id)?.[field] === undefined) lacking = true;
    return value;
  });
  return lacking;
}

/**
 * The fixture's record of the same id, or for a record whose id was random when the fixture seeded it (basic
 * credentials), the one with the same tenant and username.
 */
function fixtureRecord(
  fixture: StateDocument | undefined,
  collection: string,
  id: string,
  record: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const records = fixture?.collections[collection];
  if (!records) return undefined;
  if (Object.hasOwn(records, id)) return records[id];
  if (typeof record?.username !== 'string') return undefined;
  return Object.values(records).find((r) => r.username === record.username && r.tenantId === record.tenantId);
}

/** The secret that must equal this one (a tenant's backend client secret is its realm client's secret), if any. */
function twinOf(
  services: readonly ServiceDescriptor[],
  document: StateDocument,
  collection: string,
  id: string,
  field: string,
) {
  for (const service of services) {
    const twin = service.secretTwins?.[collection]?.[field]?.(id, document.collections[collection]?.[id] ?? {});
    if (twin) return twin;
  }
  return undefined;
}

/**
 * An imported document whose secrets are `<redacted>` keeps the values stored now, so that an export without
 * secrets imports again. A redacted secret with nothing stored to keep is refused, unless a fallback is given: then
 * it is taken from the fixtures' record with the same id, else generated (and collected in `fallback.generated`).
 */
export function keepStoredSecrets(
  document: StateDocument,
  store: Store,
  services: readonly ServiceDescriptor[],
  source: string,
  fallback?: SecretFallback,
): StateDocument {
  const made = new Map<string, string>();
  const keyOf = (collection: string, id: string, field: string) => JSON.stringify([collection, id, field]);
  return mapSecrets(document, services, (collection, id, field, value) => {
    if (value !== REDACTED) return value;
    const stored = store.get(collection, id)?.[field];
    if (stored !== undefined) return stored;
    if (!fallback) {
      throw new FixtureError(
        `${source}: collections.${collection}["${id}"].${field} is ${REDACTED} and no stored record holds it ` +
          `to keep; export with secrets (includeSecrets=true, fixtures export --include-secrets).`,
      );
    }
    const defined = fixtureRecord(fallback.fixture, collection, id, document.collections[collection]?.[id])?.[field];
    if (defined !== undefined && defined !== REDACTED) return defined;
    const key = keyOf(collection, id, field);
    const twin = twinOf(services, document, collection, id, field);
    const twinKey = twin && keyOf(twin.collection, twin.id, twin.field);
    let secret = made.get(key) ?? (twinKey ? made.get(twinKey) : undefined);
    if (secret === undefined) {
      secret = randomBytes(18).toString('base64url');
      made.set(key, secret);
      if (twinKey) made.set(twinKey, secret);
    }
    fallback.generated.push({ collection, id, field, value: secret });
    return secret;
  });
}
