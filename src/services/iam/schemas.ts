import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';
import { withPasswordHash } from '../../auth/passwords.js';

/** Spec 3, User and Group: the patterns as written. */
export const EMAIL_PATTERN = '^[a-z0-9]+[._]?[a-z0-9]+[@][a-z]+[.][a-z]{2,3}$';
export const NAME_PATTERN = '^[a-zA-Z0-9_@.-]*$';
export const POLICY_NAME_PATTERN = '^[a-zA-Z0-9_-]*$';
/** Not given by the spec: path segments of the name characters, separated by `/` (`engineering/berlin`). */
export const PATH_PATTERN = '^[a-zA-Z0-9_@./-]*$';

const text = { type: 'string' } as const;
const ids = { type: 'array', items: { type: 'string', minLength: 1 } } as const;
const strings = { type: 'array', items: { type: 'string' } } as const;

export const userCreateSchema = typedSchema({
  type: 'object',
  required: ['email', 'username', 'password', 'confirmPassword'],
  properties: {
    firstName: text,
    lastName: text,
    email: { type: 'string', pattern: EMAIL_PATTERN, maxLength: 254 },
    username: { type: 'string', pattern: NAME_PATTERN, minLength: 1, maxLength: 255 },
    password: { type: 'string', minLength: 1, maxLength: 256 },
    confirmPassword: { type: 'string' },
    enabled: { type: 'boolean' },
    path: { type: 'string', pattern: PATH_PATTERN, maxLength: 512 },
    policyIDs: ids,
    groups: ids,
    sendVerifyEmail: { type: 'boolean' },
    redirectUri: text,
  },
});

export const userDeleteSchema = typedSchema({
  type: 'object',
  required: ['userIDs'],
  properties: { userIDs: { ...ids, minItems: 1 } },
});

export const policyIdsSchema = typedSchema({
  type: 'object',
  required: ['policyIDs'],
  properties: { policyIDs: ids },
});

const effect = { enum: ['allow', 'deny'] } as const;

/** `PUT /users/{userID}/policy`: the user's resource policy, who may do what to this user. */
export const resourcePolicySchema = typedSchema({
  type: 'object',
  required: ['statements'],
  properties: {
    statements: {
      type: 'array',
      items: {
        type: 'object',
        required: ['actions', 'principals', 'effect'],
        properties: { actions: strings, principals: strings, description: text, effect },
      },
    },
  },
});

export const groupCreateSchema = typedSchema({
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: NAME_PATTERN, minLength: 1, maxLength: 255 },
    displayName: text,
    parentID: { type: 'string', minLength: 1 },
    users: ids,
    policyIDs: ids,
  },
});

/** `POST /policies` (an emulator addition): an identity policy to attach to users and groups. */
export const policyCreateSchema = typedSchema({
  type: 'object',
  required: ['name', 'statements'],
  properties: {
    name: { type: 'string', pattern: POLICY_NAME_PATTERN, minLength: 1, maxLength: 128 },
    description: text,
    statements: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['effect', 'actions'],
        properties: {
          effect,
          actions: { ...strings, minItems: 1 },
          resources: strings,
          principals: strings,
          description: text,
        },
      },
    },
  },
});

export type UserInput = FromSchema<typeof userCreateSchema>;
export type GroupInput = FromSchema<typeof groupCreateSchema>;
export type PolicyInput = FromSchema<typeof policyCreateSchema>;
export type ResourcePolicyInput = FromSchema<typeof resourcePolicySchema>;

export const userRecord = withPasswordHash(
  tenantRecord(['id', 'username', 'email', 'krn', 'passwordHash', 'created', 'updated']),
);
export const groupRecord = tenantRecord(['id', 'name', 'path', 'krn', 'created', 'updated']);
export const policyRecord = tenantRecord(['id', 'name', 'krn', 'type', 'version']);
export const resourcePolicyRecord = tenantRecord([]);
