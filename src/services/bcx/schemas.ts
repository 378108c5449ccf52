import { tenantRecord } from '../../contract.js';

const PAYLOAD_FIELDS = ['appName', 'endpointId', 'name', 'createdDate', 'file'] as const;

/** A stored blob (collection `binary-data`); the payload itself is the file `file` of `payloadFiles`. */
export const blobRecord = tenantRecord([...PAYLOAD_FIELDS, 'id']);
/** A stored file (collection `files`). */
export const fileRecord = tenantRecord([...PAYLOAD_FIELDS, 'updatedDate']);
/** An endpoint's upload token (`X-Auth-Token`): kept in the state, so that it outlives a restart. */
export const uploadTokenRecord = tenantRecord(['token', 'endpointId', 'issuedDate', 'expiresDate']);
