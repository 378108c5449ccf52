import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

/** `GET /automations`: the two types spec 2 shows, the e-mail one with its body schema. */
export const AUTOMATIONS = [
  { automationType: 'command-invocation' },
  {
    automationType: 'email-notification',
    schema: {
      type: 'object',
      required: ['recipient', 'subject', 'text'],
      properties: { recipient: { type: 'string' }, subject: { type: 'string' }, text: { type: 'string' } },
    },
  },
];

/** The longest address RFC 5321 allows in a path. */
export const MAX_ADDRESS_LENGTH = 254;

/** `POST .../recipients`. */
export const recipientCreationSchema = typedSchema({
  type: 'object',
  required: ['recipient'],
  properties: { recipient: { type: 'string', format: 'email', maxLength: MAX_ADDRESS_LENGTH } },
});

/** `PUT .../recipients/verify`: recipient ids. */
export const recipientIdsSchema = typedSchema({
  type: 'array',
  minItems: 1,
  maxItems: 1000,
  items: { type: 'integer', minimum: 1 },
});

export type RecipientCreation = FromSchema<typeof recipientCreationSchema>;
export type RecipientIds = FromSchema<typeof recipientIdsSchema>;

export const recipientRecord = tenantRecord([
  'notificationType',
  'recipient',
  'state',
  'verificationToken',
  'createdAt',
  'updatedAt',
]);
export const capturedMailRecord = tenantRecord(['to', 'subject', 'text', 'sentAt']);
