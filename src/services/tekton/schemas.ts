import type { JsonSchema } from '../../contract.js';

/** RFC 6902: an array of operations, each with `op` and `path`; the rest of each operation is checked as it is applied. */
export const jsonPatchSchema: JsonSchema = {
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
};
