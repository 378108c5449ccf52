import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';
import { withPasswordHash } from '../../auth/passwords.js';

// Lengths here; the characters (spec 1, Limits: ASCII, no `:` or `@` in a username) in `checkCharacters`, whose
// 400 says which character is wrong rather than quoting a pattern.
export const username = { type: 'string', minLength: 1, maxLength: 255 } as const;
export const password = { type: 'string', minLength: 1, maxLength: 72 } as const;

export const CREDENTIAL_STATES = ['Active', 'Inactive', 'Suspended', 'Revoked'] as const;

/** `POST /basic-credentials`: both fields optional, generated when absent. */
export const basicCredentialsCreateSchema = typedSchema({
  type: 'object',
  properties: { username, password },
});

/** `PATCH /basic-credentials/{id}/state`: Inactive is where a credential starts, never a target. */
export const stateChangeSchema = typedSchema({
  type: 'object',
  required: ['state'],
  properties: { state: { enum: ['Active', 'Suspended', 'Revoked'] } },
});

/** `PATCH /basic-credentials/{id}/password`: generated when absent. */
export const passwordChangeSchema = typedSchema({
  type: 'object',
  properties: { password },
});

/** `POST /x509-credentials` as JSON (the other form is the PEM itself, `Content-Type: application/x-pem-file`). */
export const x509CreateSchema = typedSchema({
  type: 'object',
  required: ['certificate'],
  properties: { certificate: { type: 'string', minLength: 1 } },
});

export type BasicCredentialsCreate = FromSchema<typeof basicCredentialsCreateSchema>;

export const basicCredentialRecord = withPasswordHash(
  tenantRecord(['id', 'username', 'passwordHash', 'state', 'createdDate', 'updatedDate']),
);
export const x509CredentialRecord = tenantRecord([
  'id',
  'state',
  'serialNumber',
  'commonName',
  'invalidAfter',
  'fingerprint',
  'createdDate',
  'updatedDate',
]);

/**
 * `POST /x509-credentials/generate`: both optional; the CN's characters and the TTL's range are checked by the domain
 * function.
 */
export const x509GenerateSchema = typedSchema({
  type: 'object',
  properties: {
    commonName: { type: 'string', minLength: 1, maxLength: 64 },
    ttl: { type: 'string', minLength: 1, maxLength: 64 },
  },
  additionalProperties: false,
});

/** `PUT /tls-settings`: `null` follows `--tls-client-auth` again. */
export const tlsSettingSchema = typedSchema({
  type: 'object',
  required: ['clientAuth'],
  properties: { clientAuth: { enum: ['off', 'required', null] } },
  additionalProperties: false,
});

export type X509Generate = FromSchema<typeof x509GenerateSchema>;

export const tlsSettingRecord = tenantRecord(['clientAuth', 'updatedDate'], {
  clientAuth: { enum: ['off', 'required'] },
});
