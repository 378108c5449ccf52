import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

/** A stored configuration (collections `endpoint-configs` and `default-configs`). */
export const configRecord = tenantRecord([
  'appName',
  'appVersionName',
  'configId',
  'contentType',
  'kind',
  'createdDate',
  'updatedDate',
]);

/** What an endpoint's device reported applying (collection `applied-configs`). */
export const appliedConfigRecord = tenantRecord(['endpointId', 'appVersionName']);

/** `PUT /endpoints/batch`: one configuration, endpoint ids by application version name. */
export const batchSchema = typedSchema({
  type: 'object',
  required: ['configPayload', 'endpoints'],
  properties: {
    configPayload: {},
    endpoints: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', minLength: 1 } } },
  },
  additionalProperties: false,
});
export type BatchWrite = FromSchema<typeof batchSchema>;
