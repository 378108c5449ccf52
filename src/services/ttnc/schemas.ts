import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

const name = { type: 'string', minLength: 1, maxLength: 255 } as const;
/** Host names and server addresses (`eu1.cloud.thethings.network`, `...:1883`, `mqtts://...`): no blanks. */
const address = { type: 'string', minLength: 1, maxLength: 1024, pattern: '^\\S+$' } as const;
const status = { enum: ['ACTIVE', 'SUSPENDED'] } as const;
const state = { enum: ['CONNECTED', 'DISCONNECTED'] } as const;

/** `POST /integrations`: every field but `description` required (spec 2). */
export const integrationCreationSchema = typedSchema({
  type: 'object',
  required: ['appName', 'lnsUsername', 'lnsApiKeyId', 'lnsIdentityServerHost', 'lnsPlainMqttServerUrl', 'name'],
  properties: {
    appName: name,
    lnsUsername: name,
    lnsApiKeyId: { type: 'string', minLength: 1, maxLength: 4096 },
    lnsIdentityServerHost: address,
    lnsPlainMqttServerUrl: address,
    name,
    description: { type: 'string', maxLength: 4096 },
  },
});

export const deviceSchema = typedSchema({
  type: 'object',
  required: ['lnsDeviceId', 'endpointId', 'name'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    lnsDeviceId: name,
    endpointId: name,
    name,
    appVersionName: name,
    description: { type: 'string' },
    status,
  },
  additionalProperties: false,
});

/** `PATCH /_emu/lorawan/integrations/{id}`: what the network server reports. */
export const networkServerReportSchema = typedSchema({
  type: 'object',
  minProperties: 1,
  properties: {
    status,
    state,
    error: { type: ['string', 'null'], maxLength: 4096 },
    devices: { type: 'array', maxItems: 10_000, items: deviceSchema },
  },
  additionalProperties: false,
});

/** One item of the fixture section `lorawanIntegrations`. */
export const integrationFixtureSchema = {
  type: 'object',
  required: ['appName', 'lnsUsername', 'lnsIdentityServerHost', 'lnsPlainMqttServerUrl', 'name'],
  properties: {
    ...integrationCreationSchema.properties,
    status,
    state,
    error: { type: 'string' },
    devices: { type: 'array', items: deviceSchema },
  },
  additionalProperties: false,
} as const;

/** The body of `POST /integrations`, after its schema. */
export type IntegrationInput = FromSchema<typeof integrationCreationSchema>;
/** What the network server would report, as a user sets it (`PATCH /_emu/lorawan/integrations/{id}`, fixtures). */
export type NetworkServerReport = FromSchema<typeof networkServerReportSchema>;
export type DeviceInput = FromSchema<typeof deviceSchema>;
export type IntegrationStatus = FromSchema<typeof status>;
export type ConnectionState = FromSchema<typeof state>;

export const integrationRecord = tenantRecord([
  'appName',
  'lnsUsername',
  'lnsIdentityServerHost',
  'lnsPlainMqttServerUrl',
  'name',
  'status',
  'state',
]);
