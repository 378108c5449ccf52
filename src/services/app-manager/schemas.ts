import { DATE_TIME, ID_PATTERN, tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

export const APP_NAME_PATTERN = '^[a-z0-9_-]+$';

const optionalText = { type: ['string', 'null'] } as const;

/** `POST /applications`: `name` may be absent or empty in the later revision (then generated). */
export const applicationCreateSchema = typedSchema({
  type: 'object',
  properties: {
    name: { anyOf: [{ type: 'string', pattern: APP_NAME_PATTERN, maxLength: 255 }, { const: '' }, { type: 'null' }] },
    displayName: optionalText,
    description: optionalText,
  },
});

/** `POST /applications/{appName}/versions` (an emulator addition). */
export const versionCreateSchema = typedSchema({
  type: 'object',
  properties: {
    name: { anyOf: [{ type: 'string', pattern: ID_PATTERN, maxLength: 255 }, { const: '' }, { type: 'null' }] },
    displayName: optionalText,
    description: optionalText,
  },
});

/** The body of `POST /applications` or `.../versions`, after its schema. */
export type NamedInput = FromSchema<typeof applicationCreateSchema>;

export const applicationRecord = tenantRecord(['name', 'createdDate', 'updatedDate'], {
  name: { type: 'string', pattern: APP_NAME_PATTERN },
  displayName: { type: 'string' },
  description: { type: 'string' },
  createdDate: DATE_TIME,
  updatedDate: DATE_TIME,
});

export const appVersionRecord = tenantRecord(['appName', 'name', 'createdDate', 'updatedDate'], {
  appName: { type: 'string', pattern: APP_NAME_PATTERN },
  name: { type: 'string', pattern: ID_PATTERN },
  displayName: { type: 'string' },
  description: { type: 'string' },
  createdDate: DATE_TIME,
  updatedDate: DATE_TIME,
});
