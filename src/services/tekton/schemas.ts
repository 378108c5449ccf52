import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

/**
 * RFC 6902: an array of operations, each with `op` and `path`; the rest of each operation is checked as it is applied.
 */
export const jsonPatchSchema = typedSchema({
  type: 'array',
  items: {
    type: 'object',
    required: ['op', 'path'],
    properties: {
      op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
      path: { type: 'string' },
      from: { type: 'string' },
    },
  },
});

export type JsonPatch = FromSchema<typeof jsonPatchSchema>;

/** `config` is any JSON value (`{}`: the schema takes anything, as the import did before it was named here). */
export const appConfigSchema = tenantRecord(['appName', 'appVersionName', 'createdDate', 'updatedDate'], {
  config: {},
});
