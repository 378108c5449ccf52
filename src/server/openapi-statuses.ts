/**
 * The error statuses spec 2 and 3 name for each operation (`shared/spec/operations.json` order), keyed
 * `<prefix> <METHOD> <path>`. The OpenAPI document lists them with what the route table adds: 401 and 403 (or 404)
 * where a scope is needed, 304 and 412 with `etag`, 400 where a body or query is checked, 404 where the path names a
 * record. `alternatives` are other success statuses the spec names (202 of a command, 201/204 of the raw shape).
 */
export interface SpecStatuses {
  errors: number[];
  alternatives?: number[];
}

export const SPEC_STATUSES: Record<string, SpecStatuses> = {
  'automation GET /automations': { errors: [] },
  'automation GET /notification-types/{notificationType}/recipients': { errors: [400] },
  'automation POST /notification-types/{notificationType}/recipients': { errors: [400, 403] },
  'automation GET /notification-types/{notificationType}/recipients/{recipientId}': { errors: [404] },
  'automation DELETE /notification-types/{notificationType}/recipients/{recipientId}': { errors: [404] },
  'automation POST /notification-types/{notificationType}/recipients/{recipientId}/verification': {
    errors: [400, 404],
  },
  'automation GET /notification-types/{notificationType}/recipients/{recipientId}/verification/{token}': {
    errors: [400, 404],
  },
  'automation PUT /notification-types/{notificationType}/recipients/verify': { errors: [400, 404] },

  'epr POST /endpoints': { errors: [400, 403] },
  'epr GET /endpoints': { errors: [304, 400] },
  'epr GET /endpoints/{endpointId}': { errors: [304, 400, 404] },

  'ecr PUT /endpoints/{endpointId}/app-versions/{appVersionName}': {
    errors: [400, 404, 412, 422, 503],
    alternatives: [201, 204],
  },
  'ecr GET /endpoints/{endpointId}/app-versions/{appVersionName}': { errors: [304, 404] },
  'ecr DELETE /endpoints/{endpointId}/app-versions/{appVersionName}': { errors: [404, 412] },
  // 400: the emulator's answer to a `.` or `..` endpoint id (docs/services/endpoint-configuration.md), as on every
  // operation of the registry that names an endpoint; the others list 400 for their query or body already.
  'ecr GET /endpoints/{endpointId}': { errors: [400, 404] },
  'ecr PUT /endpoints/batch': { errors: [400, 404, 422, 503] },
  'ecr PUT /endpoints/filters/{filterId}': { errors: [400, 404, 422, 503] },
  'ecr PUT /app-versions/{appVersionName}': { errors: [400, 404, 412, 422, 503] },
  'ecr GET /app-versions/{appVersionName}': { errors: [304] },

  'cex POST /endpoints/{endpointId}/commands/{commandType}': { errors: [400, 404, 415], alternatives: [202] },
  'cex GET /endpoints/{endpointId}/commands/{commandType}/{commandId}': { errors: [404] },
  'cex DELETE /endpoints/{endpointId}/commands/{commandType}/{commandId}': { errors: [404] },
  'cex GET /endpoints/{endpointId}/commands/{commandType}/last': { errors: [400, 403, 404] },
  'cex GET /endpoints/commands': { errors: [400] },
  'cex GET /endpoints/commands/{applicationName}': { errors: [] },

  'otao GET /applications/{appName}/software': { errors: [400, 404] },
  'otao GET /applications/{appName}/software/{softwareVersion}': { errors: [400, 404] },
  'otao PUT /applications/{appName}/software/{softwareVersion}': { errors: [400, 404] },
  'otao POST /applications/{appName}/software/{softwareVersion}': { errors: [] },

  'bcx POST /binary-data': { errors: [403] },
  'bcx POST /files/{filename}': { errors: [400, 403] },
  'bcx GET /applications/{appName}/files': { errors: [400, 403, 404] },
  'bcx GET /applications/{appName}/binary-data': { errors: [404] },
  'bcx GET /applications/{appName}/binary-data/list': { errors: [] },
  'bcx GET /applications/{appName}/endpoints/{endpointId}/binary-data/data/last': { errors: [404] },
  'bcx DELETE /applications/{appName}/endpoints/{endpointId}/binary-data/{blobId}': { errors: [404] },
  'bcx GET /applications/{appName}/endpoints/{endpointId}/binary-data/{blobId}/data': { errors: [404] },

  'epts GET /time-series/config': { errors: [] },
  'epts GET /applications/{applicationName}/time-series/last': { errors: [] },
  'epts GET /applications/{applicationName}/time-series/data': { errors: [] },
  'epts PUT /applications/{applicationName}/time-series/data': { errors: [400, 404] },

  'ttnc POST /integrations': { errors: [400, 403, 409] },
  'ttnc GET /integrations': { errors: [400] },
  'ttnc GET /integrations/{appIntegrationId}': { errors: [404] },

  'tekton PUT /app-configs/applications/{appName}/app-versions/{appVersionName}': { errors: [404] },
  'tekton GET /app-configs/applications/{appName}/app-versions/{appVersionName}': { errors: [404] },
  'tekton PATCH /app-configs/applications/{appName}/app-versions/{appVersionName}': { errors: [404] },

  'asf PUT /_ingest/pipeline/{pipelineID}': { errors: [] },
  'asf GET /_ingest/pipeline/{pipelineID}': { errors: [] },
  'asf DELETE /_ingest/pipeline/{pipelineID}': { errors: [] },
  'asf POST /_ingest/pipeline/simulate/{pipelineID}': { errors: [] },
  'asf POST /_ingest/pipeline/simulate/': { errors: [] },

  'tenant-manager GET /tenants': { errors: [400, 401] },
  'tenant-manager POST /tenants': { errors: [400, 401] },
  'tenant-manager GET /tenants/{tenantId}': { errors: [] },
  'tenant-manager DELETE /templates/realms/{id}': { errors: [400, 401, 404] },
  'tenant-manager GET /templates/realm-frontend-clients': { errors: [400, 401] },
  'tenant-manager POST /templates/realm-frontend-clients': { errors: [400, 401] },
  'tenant-manager GET /templates/realm-frontend-clients/{id}': { errors: [400, 401, 404] },
  'tenant-manager PUT /templates/realm-frontend-clients/{id}': { errors: [400, 401, 404] },
  'tenant-manager GET /templates/realm-backend-clients/{id}': { errors: [400, 401, 404] },
  'tenant-manager PUT /templates/realm-backend-clients/{id}': { errors: [400, 401, 404] },

  'app-manager GET /service-instances': { errors: [] },
  'app-manager GET /service-instances/{serviceInstanceName}': { errors: [404] },
  'app-manager POST /applications': { errors: [400, 403, 409] },
  'app-manager GET /applications': { errors: [400] },
  'app-manager GET /applications/{appName}': { errors: [] },

  'ccm GET /basic-credentials': { errors: [] },
  'ccm POST /basic-credentials': { errors: [400, 409] },
  'ccm PATCH /basic-credentials/{id}/state': { errors: [400, 404] },
  'ccm PATCH /basic-credentials/{id}/password': { errors: [400] },
  'ccm GET /x509-credentials': { errors: [] },

  // Spec 3: "Errors 400, 401, 403 have no body" for every operation of the identity and access manager.
  'iam POST /users': { errors: [400, 401, 403] },
  'iam GET /users': { errors: [400, 401, 403] },
  'iam GET /users/paths': { errors: [400, 401, 403] },
  'iam POST /users/delete': { errors: [400, 401, 403] },
  'iam POST /users/{userID}/policies/attach': { errors: [400, 401, 403] },
  'iam POST /users/{userID}/policies/detach': { errors: [400, 401, 403] },
  'iam GET /users/{userID}/policy': { errors: [400, 401, 403] },
  'iam PUT /users/{userID}/policy': { errors: [400, 401, 403] },
  'iam POST /groups': { errors: [400, 401, 403] },
  'iam GET /groups': { errors: [400, 401, 403] },
};
