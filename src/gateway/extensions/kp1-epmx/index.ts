// KP1 extension epmx (endpoint metadata): the device side of the endpoint register's metadata.
import { deleteMetadataKeys, writeMetadata } from '../../../services/epr/endpoints.js';
import { METADATA_KEY_PATTERN } from '../../../services/epr/schemas.js';
import { describeValue, invalidPayload, isPlainObject, optionalObject, type Kp1Extension } from '../../extension.js';

const KEY_PATTERN = new RegExp(METADATA_KEY_PATTERN);

function checkKey(key: unknown, where: string): string {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw invalidPayload(
      `${where}: metadata keys are letters, digits and underscores (${KEY_PATTERN.source}); got ${describeValue(key)}.`,
    );
  }
  return key;
}

function metadataOf(payload: unknown): Record<string, unknown> {
  if (!isPlainObject(payload) || Object.keys(payload).length === 0) {
    throw invalidPayload(
      `The metadata payload must be a JSON object with at least one key, like {"serial": "A1"}; got ` +
        `${payload === undefined ? 'nothing' : describeValue(payload)}.`,
    );
  }
  for (const key of Object.keys(payload)) checkKey(key, `Key "${key}"`);
  return payload;
}

/**
 * `update/keys` takes an object, or (as the platform does: its Raspberry Pi client sends `[{...}]`) an array of
 * objects merged in order.
 */
function mergedMetadataOf(payload: unknown): Record<string, unknown> {
  if (!Array.isArray(payload)) return metadataOf(payload);
  if (payload.length === 0)
    throw invalidPayload(
      'The metadata payload is an empty array: send an object, or an array of objects, with at least one key.',
    );
  const merged: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  payload.forEach((item, i) => {
    if (!isPlainObject(item))
      throw invalidPayload(`Metadata [${i}] must be a JSON object like {"serial": "A1"}; got ${describeValue(item)}.`);
    Object.assign(merged, metadataOf(item));
  });
  return { ...merged };
}

function keyListOf(payload: unknown): string[] {
  if (!Array.isArray(payload) || payload.length === 0) {
    throw invalidPayload(
      `The payload must be a non-empty array of metadata key names, like ["serial"]; got ` +
        `${payload === undefined ? 'nothing' : describeValue(payload)}.`,
    );
  }
  const keys = payload.map((key, i) => checkKey(key, `Key [${i}]`));
  const repeated = keys.find((key, i) => keys.indexOf(key) !== i);
  if (repeated !== undefined) throw invalidPayload(`Key "${repeated}" is listed twice; the keys must be unique.`);
  return keys;
}

/** Endpoint metadata (spec 4), kept in the endpoint register through its domain functions. */
export const epmx: Kp1Extension = {
  name: 'epmx',
  resources: [
    {
      path: 'get',
      handle({ endpoint, payload }) {
        const { keys } = optionalObject(payload, ['keys'], 'get');
        if (keys === undefined) return { payload: endpoint.metadata };
        const wanted = keyListOf(keys);
        return {
          payload: Object.fromEntries(
            wanted.filter((k) => Object.hasOwn(endpoint.metadata, k)).map((k) => [k, endpoint.metadata[k]]),
          ),
        };
      },
    },
    {
      // 10/EPMP: "The server MUST ignore payload if any."
      path: 'get/keys',
      payload: 'raw',
      handle({ endpoint }) {
        return { payload: Object.keys(endpoint.metadata) };
      },
    },
    {
      path: 'update',
      async handle({ ctx, endpoint, payload }) {
        await writeMetadata(ctx, endpoint, metadataOf(payload), false);
        return {};
      },
    },
    {
      path: 'update/keys',
      async handle({ ctx, endpoint, payload }) {
        await writeMetadata(ctx, endpoint, mergedMetadataOf(payload), true);
        return {};
      },
    },
    {
      path: 'delete/keys',
      async handle({ ctx, endpoint, payload }) {
        await deleteMetadataKeys(ctx, endpoint, keyListOf(payload));
        return {};
      },
    },
  ],
};
