import { DATE_TIME, tenantRecord, type FromSchema } from '../../contract.js';

/** Spec 2: a non-empty alphanumeric type name. */
export const COMMAND_TYPE_PATTERN = /^[a-zA-Z0-9]+$/;

/** A stored command (collection `commands`); the payloads are any JSON value (`{}`). */
export const commandRecord = tenantRecord(
  ['appName', 'commandId', 'commandType', 'endpointId', 'status', 'createdAt', 'updatedAt', 'retainUntil'],
  {
    commandId: { type: 'integer', minimum: 1 },
    commandType: { type: 'string', pattern: COMMAND_TYPE_PATTERN.source },
    /**
     * `PENDING` → `EXECUTED` (the device reported a result) or `EXPIRED` (its TTL ran out first); see
     * docs/services/command-invocation.md.
     */
    status: { enum: ['PENDING', 'EXECUTED', 'EXPIRED'] },
    statusCode: { type: 'integer' },
    reasonPhrase: { type: 'string' },
    requestPayload: {},
    responsePayload: {},
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
    /** When a PENDING command becomes EXPIRED; absent: it stays pending until its retention ends. */
    expiresAt: DATE_TIME,
    /** When the record is deleted, whatever its status. */
    retainUntil: DATE_TIME,
  },
);

export type CommandRecord = FromSchema<typeof commandRecord>;
