import { ID_PATTERN, type JsonSchema } from '../../contract.js';

/** Longest endpointId the emulator takes (spec 1 names no limit; docs/services/endpoint-register.md). */
export const MAX_ENDPOINT_ID_LENGTH = 255;

export const endpointIdSchema: JsonSchema = {
  type: 'string',
  pattern: ID_PATTERN,
  minLength: 1,
  maxLength: MAX_ENDPOINT_ID_LENGTH,
};

/** KP1 topic levels hold the token: no `+`, `#`, `/` (MQTT) and no `.` (spec 2). */
export const endpointTokenSchema: JsonSchema = { type: 'string', pattern: '^[^+#/.]+$', minLength: 1, maxLength: 255 };

export const metadataSchema: JsonSchema = { type: 'object' };

/** What a metadata key a device writes over KP1 (epmx) may hold: letters, digits and `_`. */
export const METADATA_KEY_PATTERN = '^[a-zA-Z0-9_]+$';

/** `POST /endpoints`. */
export const endpointRegistrationSchema: JsonSchema = {
  type: 'object',
  required: ['appVersion'],
  properties: {
    appVersion: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
    metadata: metadataSchema,
    endpointToken: endpointTokenSchema,
    endpointId: endpointIdSchema,
  },
};
