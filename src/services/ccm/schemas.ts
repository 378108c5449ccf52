import type { JsonSchema } from '../../contract.js';

// Lengths here; the characters (spec 1, Limits: ASCII, no `:` or `@` in a username) in `checkCharacters`, whose
// 400 says which character is wrong rather than quoting a pattern.
export const username: JsonSchema = { type: 'string', minLength: 1, maxLength: 255 };
export const password: JsonSchema = { type: 'string', minLength: 1, maxLength: 72 };

export const CREDENTIAL_STATES = ['Active', 'Inactive', 'Suspended', 'Revoked'] as const;

/** `POST /basic-credentials`: both fields optional, generated when absent. */
export const basicCredentialsCreateSchema: JsonSchema = {
  type: 'object',
  properties: { username, password },
};

/** `PATCH /basic-credentials/{id}/state`: Inactive is where a credential starts, never a target. */
export const stateChangeSchema: JsonSchema = {
  type: 'object',
  required: ['state'],
  properties: { state: { enum: ['Active', 'Suspended', 'Revoked'] } },
};

/** `PATCH /basic-credentials/{id}/password`: generated when absent. */
export const passwordChangeSchema: JsonSchema = {
  type: 'object',
  properties: { password },
};

/** `POST /x509-credentials` as JSON (the other form is the PEM itself, `Content-Type: application/x-pem-file`). */
export const x509CreateSchema: JsonSchema = {
  type: 'object',
  required: ['certificate'],
  properties: { certificate: { type: 'string', minLength: 1 } },
};
