import { tenantRecord } from '../../contract.js';

/** A stored configuration (collections `endpoint-configs` and `default-configs`). */
export const configRecord = tenantRecord(['appName', 'appVersionName', 'configId', 'contentType', 'kind', 'createdDate', 'updatedDate']);

/** What an endpoint's device reported applying (collection `applied-configs`). */
export const appliedConfigRecord = tenantRecord(['endpointId', 'appVersionName']);
