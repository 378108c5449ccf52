import type { JsonSchema } from '../contract.js';

/**
 * The success bodies of the operations, for the OpenAPI document: named record schemas (components) from the
 * spec's resource tables, and per operation (`<prefix> <METHOD> <path>`) the schema of its success answer. An
 * operation not listed answers any JSON (`{}`); 204 answers nothing; `binary` is a download.
 */

const string = { type: 'string' };
const integer = { type: 'integer' };
const boolean = { type: 'boolean' };
const dateTime = { type: 'string', format: 'date-time' };
const strings = { type: 'array', items: string };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const arrayOf = (name: string) => ({ type: 'array', items: ref(name) });
const object = (required: string[], properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required,
  properties,
});
const data = (schema: JsonSchema) => object(['data'], { data: schema });

export const RECORD_SCHEMAS: Record<string, JsonSchema> = {
  Automation: object(['automationType'], { automationType: string, schema: { type: 'object' } }),
  Recipient: object(['id', 'recipient', 'state'], {
    id: integer,
    recipient: string,
    state: { enum: ['VERIFIED', 'UNVERIFIED'] },
  }),
  Registration: object(['token', 'status'], { token: string, status: { enum: ['Inactive', 'Active'] } }),
  Endpoint: object(['endpointId', 'createdDate', 'appVersion', 'filters'], {
    endpointId: string,
    createdDate: dateTime,
    appVersion: object(['name', 'registeredDate'], { name: string, registeredDate: dateTime }),
    metadata: { type: 'object' },
    metadataUpdatedDate: dateTime,
    filters: strings,
  }),
  Metadata: { type: 'object', additionalProperties: {}, description: 'Metadata keys to values of any JSON type' },
  ConfigurationRecord: object(['configId', 'config', 'createdDate', 'updatedDate'], {
    configId: string,
    config: string,
    createdDate: dateTime,
    updatedDate: dateTime,
  }),
  ConfigurationListingItem: object(['appVersionName', 'configId', 'configContentType', 'config', 'updatedDate'], {
    appVersionName: string,
    configId: string,
    configContentType: string,
    config: string,
    updatedDate: dateTime,
  }),
  Command: object(['commandId', 'commandType', 'endpointId', 'status'], {
    commandId: integer,
    commandType: string,
    endpointId: string,
    status: { type: 'string', description: '`pending`, `executed` or `expired`' },
    statusCode: integer,
    reasonPhrase: string,
    requestPayload: {},
    responsePayload: {},
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  CommandDescriptor: object(['endpointId', 'commands'], { endpointId: string, commands: arrayOf('Command') }),
  Software: object(['appName', 'version', 'rolloutStrategy'], {
    appName: string,
    version: string,
    specification: {},
    metadata: {},
    upgradableFrom: { type: 'array' },
    rolloutStrategy: { enum: ['suspended', 'targeted', 'general'] },
    filters: { type: 'array', items: object(['filterId'], { filterId: string, rolloutDate: string }) },
  }),
  File: object(['name', 'endpointId', 'createdDate', 'updatedDate'], {
    name: string,
    endpointId: string,
    url: string,
    size: integer,
    createdDate: dateTime,
    updatedDate: dateTime,
  }),
  Blob: object(['id', 'name', 'url', 'size', 'createdDate'], {
    id: string,
    name: string,
    url: string,
    size: integer,
    createdDate: dateTime,
  }),
  Integration: object(
    ['id', 'appName', 'lnsUsername', 'lnsIdentityServerHost', 'lnsPlainMqttServerUrl', 'name', 'status'],
    {
      id: integer,
      appName: string,
      lnsUsername: string,
      lnsIdentityServerHost: string,
      lnsPlainMqttServerUrl: string,
      name: string,
      description: string,
      status: { enum: ['ACTIVE', 'SUSPENDED'] },
      state: { enum: ['CONNECTED', 'DISCONNECTED'] },
      error: string,
      devices: { type: 'array' },
    },
  ),
  Acknowledgement: object(['acknowledged'], { acknowledged: boolean }),
  Tenant: object(
    [
      'id',
      'realm_name',
      'client_frontend_id',
      'client_backend_id',
      'client_backend_secret',
      'issuer',
      'status',
      'created',
    ],
    {
      id: string,
      realm_name: string,
      client_frontend_id: string,
      client_backend_id: string,
      client_backend_secret: string,
      issuer: string,
      status: { enum: ['AVAILABLE', 'CREATING', 'UPDATING', 'DISABLED', 'DELETED', 'SUSPENDED', 'FAILED'] },
      created: dateTime,
      subscription_type: { enum: ['PERMANENT', 'RENEWAL'] },
    },
  ),
  Template: object(['id', 'template', 'description'], {
    id: integer,
    template: { type: 'object' },
    description: string,
  }),
  ServiceInstance: object(
    ['name', 'serviceName', 'serviceGroup', 'appConfigurationSchemaPresent', 'appVersionConfigurationSchemaPresent'],
    {
      name: string,
      serviceName: string,
      serviceGroup: string,
      description: string,
      urlPrefix: string,
      appConfigurationSchemaPresent: boolean,
      appConfigurationSchema: { type: 'object' },
      appVersionConfigurationSchemaPresent: boolean,
      appVersionConfigurationSchema: { type: 'object' },
    },
  ),
  Version: object(['name', 'createdDate', 'updatedDate'], {
    name: string,
    displayName: string,
    description: string,
    createdDate: dateTime,
    updatedDate: dateTime,
  }),
  Application: object(['name', 'tenantId', 'createdDate', 'updatedDate', 'versions'], {
    name: string,
    displayName: string,
    description: string,
    tenantId: string,
    createdDate: dateTime,
    updatedDate: dateTime,
    versions: arrayOf('Version'),
  }),
  BasicCredentials: object(['id', 'username', 'state', 'createdDate', 'updatedDate'], {
    id: string,
    username: string,
    state: { enum: ['Active', 'Inactive', 'Suspended', 'Revoked'] },
    createdDate: dateTime,
    updatedDate: dateTime,
    lastUseDate: dateTime,
    password: { type: 'string', description: 'Only in the answer of the creation' },
  }),
  X509Credentials: object(['id', 'state', 'serialNumber', 'commonName', 'invalidAfter', 'createdDate', 'updatedDate'], {
    id: string,
    state: { enum: ['Active', 'Inactive', 'Suspended', 'Revoked'] },
    serialNumber: string,
    commonName: string,
    invalidAfter: dateTime,
    createdDate: dateTime,
    updatedDate: dateTime,
    lastUseDate: dateTime,
  }),
  User: object(['id', 'created', 'updated', 'tenantID', 'username', 'enabled', 'krn'], {
    id: string,
    created: dateTime,
    updated: dateTime,
    tenantID: string,
    email: string,
    username: string,
    enabled: boolean,
    path: string,
    krn: string,
  }),
  Group: object(['id', 'tenantID', 'name', 'krn', 'created', 'updated'], {
    id: string,
    tenantID: string,
    name: string,
    displayName: string,
    path: string,
    krn: string,
    created: dateTime,
    updated: dateTime,
  }),
  Policy: object(['id', 'krn', 'name', 'type', 'statements'], {
    id: string,
    krn: string,
    name: string,
    description: string,
    type: { enum: ['identity', 'resource'] },
    origin: string,
    version: string,
    statements: { type: 'array' },
  }),
};

/** What a download answers: the stored bytes. */
export const BINARY = 'binary';

const METADATA = '/endpoints/{endpointId}/metadata';
const TEMPLATE_KINDS = ['realms', 'realm-frontend-clients', 'realm-backend-clients'];

export const SUCCESS_BODIES: Record<string, JsonSchema | typeof BINARY> = {
  'automation GET /automations': arrayOf('Automation'),
  'automation GET /notification-types/{notificationType}/recipients': arrayOf('Recipient'),
  'automation POST /notification-types/{notificationType}/recipients': ref('Recipient'),
  'automation GET /notification-types/{notificationType}/recipients/{recipientId}': ref('Recipient'),
  'automation POST /notification-types/{notificationType}/recipients/{recipientId}/verification': ref('Recipient'),
  'automation GET /notification-types/{notificationType}/recipients/{recipientId}/verification/{token}':
    ref('Recipient'),
  'automation PUT /notification-types/{notificationType}/recipients/verify': arrayOf('Recipient'),
  'epr POST /endpoints': ref('Registration'),
  'epr GET /endpoints': object(['totalElements', 'content'], { totalElements: integer, content: arrayOf('Endpoint') }),
  'epr GET /endpoints/{endpointId}': ref('Endpoint'),
  [`epr GET ${METADATA}`]: ref('Metadata'),
  [`epr GET ${METADATA}/keys`]: strings,
  [`epr PUT ${METADATA}`]: ref('Metadata'),
  [`epr PATCH ${METADATA}`]: ref('Metadata'),
  [`epr PUT ${METADATA}/{key}`]: ref('Metadata'),
  'ecr GET /endpoints/{endpointId}': arrayOf('ConfigurationListingItem'),
  'cex GET /endpoints/{endpointId}/commands/{commandType}/{commandId}': ref('Command'),
  'cex GET /endpoints/{endpointId}/commands/{commandType}/last': ref('Command'),
  'cex GET /endpoints/commands': arrayOf('CommandDescriptor'),
  'cex GET /endpoints/commands/{applicationName}': object(['content', 'totalElements'], {
    content: arrayOf('CommandDescriptor'),
    totalElements: integer,
  }),
  'otao GET /applications/{appName}/software': arrayOf('Software'),
  'otao GET /applications/{appName}/software/{softwareVersion}': ref('Software'),
  'otao POST /applications/{appName}/software/{softwareVersion}': ref('Software'),
  'bcx GET /applications/{appName}/files': object(['content', 'totalElements'], {
    content: arrayOf('File'),
    totalElements: integer,
  }),
  'bcx GET /applications/{appName}/binary-data': {
    type: 'array',
    items: { type: 'object', additionalProperties: arrayOf('Blob') },
  },
  'bcx GET /applications/{appName}/binary-data/list': {
    type: 'array',
    items: { allOf: [ref('Blob'), object(['endpointId'], { endpointId: string })] },
  },
  'bcx GET /applications/{appName}/endpoints/{endpointId}/binary-data/data/last': BINARY,
  'bcx GET /applications/{appName}/endpoints/{endpointId}/binary-data/{blobId}/data': BINARY,
  'bcx GET /applications/{appName}/endpoints/{endpointId}/files/{filename}/data': BINARY,
  'bcx POST /binary-data': ref('Blob'),
  'ttnc POST /integrations': ref('Integration'),
  'ttnc GET /integrations': object(['totalElements', 'content'], {
    totalElements: integer,
    content: arrayOf('Integration'),
  }),
  'ttnc GET /integrations/{appIntegrationId}': ref('Integration'),
  'asf PUT /_ingest/pipeline/{pipelineID}': ref('Acknowledgement'),
  'asf DELETE /_ingest/pipeline/{pipelineID}': ref('Acknowledgement'),
  'tenant-manager GET /tenants': object(['count', 'results'], { count: integer, results: arrayOf('Tenant') }),
  'tenant-manager POST /tenants': ref('Tenant'),
  'tenant-manager GET /tenants/{tenantId}': ref('Tenant'),
  ...Object.fromEntries(
    TEMPLATE_KINDS.flatMap((kind) => [
      [
        `tenant-manager GET /templates/${kind}`,
        object(['count', 'results'], { count: integer, results: arrayOf('Template') }),
      ],
      [`tenant-manager POST /templates/${kind}`, ref('Template')],
      [`tenant-manager GET /templates/${kind}/{id}`, ref('Template')],
      [`tenant-manager PUT /templates/${kind}/{id}`, ref('Template')],
    ]),
  ),
  'app-manager GET /service-instances': arrayOf('ServiceInstance'),
  'app-manager GET /service-instances/{serviceInstanceName}': ref('ServiceInstance'),
  'app-manager POST /applications': ref('Application'),
  'app-manager GET /applications': arrayOf('Application'),
  'app-manager GET /applications/{appName}': ref('Application'),
  'app-manager POST /applications/{appName}/versions': ref('Version'),
  'app-manager GET /applications/{appName}/versions/{versionName}': ref('Version'),
  'ccm GET /basic-credentials': arrayOf('BasicCredentials'),
  'ccm POST /basic-credentials': ref('BasicCredentials'),
  'ccm GET /basic-credentials/{id}': ref('BasicCredentials'),
  'ccm PATCH /basic-credentials/{id}/password': object(['password'], { password: string }),
  'ccm GET /x509-credentials': arrayOf('X509Credentials'),
  'ccm GET /x509-credentials/{id}': ref('X509Credentials'),
  'iam POST /users': data(ref('User')),
  'iam GET /users': object(['data', 'count', 'page', 'pageSize'], {
    data: arrayOf('User'),
    count: integer,
    page: integer,
    pageSize: integer,
  }),
  'iam GET /users/paths': data(strings),
  'iam GET /users/{userID}/policy': data(ref('Policy')),
  'iam POST /groups': data(ref('Group')),
  'iam GET /groups': object(['data', 'count', 'page', 'pageSize'], {
    data: arrayOf('Group'),
    count: integer,
    page: integer,
    pageSize: integer,
  }),
  'iam POST /policies': data(ref('Policy')),
  'iam GET /policies': object(['data', 'count', 'page', 'pageSize'], {
    data: arrayOf('Policy'),
    count: integer,
    page: integer,
    pageSize: integer,
  }),
  'iam GET /policies/{policyID}': data(ref('Policy')),
};
