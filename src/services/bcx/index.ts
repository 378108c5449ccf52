import type { ServiceDescriptor } from '../../contract.js';
import { BLOBS, FILES, payloadFiles, removeUnlistedPayloads, setupPayloadIndexes } from './payloads.js';
import { routes } from './routes.js';
import { blobRecord, fileRecord, uploadTokenRecord } from './schemas.js';
import { setupUploadTokenIndexes, UPLOAD_TOKENS } from './upload-tokens.js';

export const binaryDataCollection: ServiceDescriptor = {
  prefix: 'bcx',
  title: 'Binary data collection',
  serviceGroup: 'device',
  routes,
  collections: {
    [BLOBS]: blobRecord,
    [FILES]: fileRecord,
    [UPLOAD_TOKENS]: uploadTokenRecord,
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
