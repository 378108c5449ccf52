import { DATE_TIME, ID_PATTERN, tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

/** Longest endpointId the emulator takes (spec 1 names no limit; docs/services/endpoint-register.md). */
export const MAX_ENDPOINT_ID_LENGTH = 255;

export const endpointIdSchema = {
  type: 'string',
  pattern: ID_PATTERN,
  minLength: 1,
  maxLength: MAX_ENDPOINT_ID_LENGTH,
} as const;

/** KP1 topic levels hold the token: no `+`, `#`, `/` (MQTT) and no `.` (spec 2). */
export const endpointTokenSchema = { type: 'string', pattern: '^[^+#/.]+$', minLength: 1, maxLength: 255 } as const;

export const metadataSchema = { type: 'object' } as const;

/** What a metadata key a device writes over KP1 (epmx) may hold: letters, digits and `_`. */
export const METADATA_KEY_PATTERN = '^[a-zA-Z0-9_]+$';

/** `POST /endpoints`. */
export const endpointRegistrationSchema = typedSchema({
  type: 'object',
  required: ['appVersion'],
  properties: {
    appVersion: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
    metadata: metadataSchema,
    endpointToken: endpointTokenSchema,
    endpointId: endpointIdSchema,
  },
});

/** A registration that holds to `endpointRegistrationSchema` (the server checked it, or the fixture validator). */
export type Registration = FromSchema<typeof endpointRegistrationSchema>;

/** A stored endpoint (collection `endpoints`). */
export const endpointRecord = tenantRecord(
  ['endpointId', 'appName', 'appVersion', 'token', 'tokenStatus', 'createdDate', 'updatedDate'],
  {
    endpointId: endpointIdSchema,
    appVersion: {
      type: 'object',
      required: ['name', 'registeredDate'],
      properties: { name: { type: 'string' }, registeredDate: DATE_TIME },
    },
    token: endpointTokenSchema,
    tokenStatus: { enum: ['Inactive', 'Active'] },
    createdDate: DATE_TIME,
    updatedDate: DATE_TIME,
    metadata: { ...metadataSchema, default: {} },
    metadataUpdatedDate: DATE_TIME,
  },
);

// The filter language (operators and operands of `match`) is checked by matchProblem on import.
export const endpointFilterRecord = tenantRecord(['applicationName', 'filterId', 'status', 'match'], {
  status: { enum: ['ACTIVE', 'INACTIVE'] },
  description: { type: 'string' },
  /** Metadata key to a value (equality) or to one operator object: `{ "$in": [...] }`, `{ "$exists": true }`, ... */
  match: { type: 'object' },
});

/** The body of `PUT` and `PATCH /endpoints/{endpointId}/metadata`: an object whose keys KP1 `epmx` would take. */
export const metadataObjectSchema = typedSchema({
  type: 'object',
  propertyNames: { pattern: METADATA_KEY_PATTERN },
});
