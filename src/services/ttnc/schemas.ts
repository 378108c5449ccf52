import type { JsonSchema } from '../../contract.js';

const name: JsonSchema = { type: 'string', minLength: 1, maxLength: 255 };
/** Host names and server addresses (`eu1.cloud.thethings.network`, `...:1883`, `mqtts://...`): no blanks. */
const address: JsonSchema = { type: 'string', minLength: 1, maxLength: 1024, pattern: '^\\S+$' };
const status: JsonSchema = { enum: ['ACTIVE', 'SUSPENDED'] };
const state: JsonSchema = { enum: ['CONNECTED', 'DISCONNECTED'] };

/** `POST /integrations`: every field but `description` required (spec 2). */
export const integrationCreationSchema: JsonSchema = {
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
};

export const deviceSchema: JsonSchema = {
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
};

/** `PATCH /_emu/lorawan/integrations/{id}`: what the network server reports. */
export const networkServerReportSchema: JsonSchema = {
  type: 'object',
  minProperties: 1,
  properties: {
    status,
    state,
    error: { type: ['string', 'null'], maxLength: 4096 },
    devices: { type: 'array', maxItems: 10_000, items: deviceSchema },
  },
  additionalProperties: false,
};

/** One item of the fixture section `lorawanIntegrations`. */
export const integrationFixtureSchema: JsonSchema = {
  type: 'object',
  required: ['appName', 'lnsUsername', 'lnsIdentityServerHost', 'lnsPlainMqttServerUrl', 'name'],
  properties: {
    ...(integrationCreationSchema.properties as Record<string, JsonSchema>),
    status,
    state,
    error: { type: 'string' },
    devices: { type: 'array', items: deviceSchema },
  },
  additionalProperties: false,
};
