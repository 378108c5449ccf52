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

/**
 * An imported document whose secrets are `<redacted>` keeps the values stored now, so that an export without
 * secrets imports again. A redacted secret with nothing stored to keep is refused.
 */
export function keepStoredSecrets(
  document: StateDocument,
  store: Store,
  services: readonly ServiceDescriptor[],
  source: string,
): StateDocument {
  return mapSecrets(document, services, (collection, id, field, value) => {
    if (value !== REDACTED) return value;
    const stored = store.get(collection, id)?.[field];
    if (stored === undefined) {
      throw new FixtureError(
        `${source}: collections.${collection}["${id}"].${field} is ${REDACTED} and no stored record holds it to keep; export with secrets (includeSecrets=true, fixtures export --include-secrets).`,
      );
    }
    return stored;
  });
}
