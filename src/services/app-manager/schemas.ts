import { ID_PATTERN, type JsonSchema } from '../../contract.js';

export const APP_NAME_PATTERN = '^[a-z0-9_-]+$';

const optionalText = { type: ['string', 'null'] };

/** `POST /applications`: `name` may be absent or empty in the later revision (then generated). */
export const applicationCreateSchema: JsonSchema = {
  type: 'object',
  properties: {
    name: { anyOf: [{ type: 'string', pattern: APP_NAME_PATTERN, maxLength: 255 }, { const: '' }, { type: 'null' }] },
    displayName: optionalText,
    description: optionalText,
  },
};

/** `POST /applications/{appName}/versions` (an emulator addition). */
export const versionCreateSchema: JsonSchema = {
  type: 'object',
  properties: {
    name: { anyOf: [{ type: 'string', pattern: ID_PATTERN, maxLength: 255 }, { const: '' }, { type: 'null' }] },
    displayName: optionalText,
    description: optionalText,
  },
};
