// Binary data collection (bcx): blobs and files devices upload.
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { BLOBS, FILES, payloadFiles, removeUnlistedPayloads } from './payloads.js';
import { routes } from './routes.js';
import { UPLOAD_TOKENS } from './upload-tokens.js';

const payloadRecord = (...fields: string[]) => tenantRecord(['appName', 'endpointId', 'name', 'createdDate', 'file', ...fields]);

export const binaryDataCollection: ServiceDescriptor = {
  prefix: 'bcx',
  title: 'Binary data collection',
  serviceGroup: 'device',
  routes,
  collections: {
    [BLOBS.name]: payloadRecord('id'),
    [FILES.name]: payloadRecord('updatedDate'),
    [UPLOAD_TOKENS.name]: tenantRecord(['token', 'endpointId', 'issuedDate', 'expiresDate']),
  },
  async setup(ctx) {
    await removeUnlistedPayloads(ctx);
  },
  async teardown(ctx) {
    await payloadFiles(ctx).dispose();
  },
};
