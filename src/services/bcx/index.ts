// Binary data collection (bcx): blobs and files devices upload.
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { BLOBS, FILES, payloadFiles, removeUnlistedPayloads, setupPayloadIndexes } from './payloads.js';
import { routes } from './routes.js';
import { setupUploadTokenIndexes, UPLOAD_TOKENS } from './upload-tokens.js';

const payloadRecord = (...fields: string[]) => tenantRecord(['appName', 'endpointId', 'name', 'createdDate', 'file', ...fields]);

export const binaryDataCollection: ServiceDescriptor = {
  prefix: 'bcx',
  title: 'Binary data collection',
  serviceGroup: 'device',
  routes,
  collections: {
    [BLOBS]: payloadRecord('id'),
    [FILES]: payloadRecord('updatedDate'),
    [UPLOAD_TOKENS]: tenantRecord(['token', 'endpointId', 'issuedDate', 'expiresDate']),
  },
  async setup(ctx) {
    setupPayloadIndexes(ctx);
    setupUploadTokenIndexes(ctx);
    await removeUnlistedPayloads(ctx);
  },
  async teardown(ctx) {
    await payloadFiles(ctx).dispose();
  },
};
