import type { EmuContext } from '../../context.js';
import { badRequest, notFound } from '../../server/errors.js';
import { deleteMetadataKeys, writeMetadata, type Endpoint } from './endpoints.js';
import { METADATA_KEY_PATTERN } from './schemas.js';

/**
 * The endpoint register's metadata operations (an emulator addition the platform's web-dashboard tutorial uses):
 * the same rules as KP1 `epmx`, through the same domain functions, so a REST write reaches the event stream and the
 * dashboard as a device's does.
 */

const KEY = new RegExp(METADATA_KEY_PATTERN);

/** A key from the path: letters, digits and `_`, as KP1 `epmx` takes them. */
export function checkMetadataKey(key: string): string {
  if (!KEY.test(key))
    throw badRequest(`A metadata key is letters, digits and underscores (${METADATA_KEY_PATTERN}); got "${key}".`);
  return key;
}

/** The value of one key, or 404 when the endpoint has no such key. */
export function metadataValue(endpoint: Endpoint, key: string): unknown {
  if (!Object.hasOwn(endpoint.metadata, key))
    throw notFound(`Endpoint ${endpoint.endpointId} has no metadata key ${key}.`);
  return endpoint.metadata[key];
}

/** `PUT .../metadata/{key}`: sets one key to any JSON value, the others kept. */
export function setMetadataValue(ctx: EmuContext, endpoint: Endpoint, key: string, value: unknown): Promise<Endpoint> {
  return writeMetadata(ctx, endpoint, { [key]: value }, true);
}

/** `DELETE .../metadata/{key}`: 404 when the key is absent, and nothing changes. */
export function deleteMetadataValue(ctx: EmuContext, endpoint: Endpoint, key: string): Promise<Endpoint> {
  metadataValue(endpoint, key);
  return deleteMetadataKeys(ctx, endpoint, [key]);
}
