// Binary data collection (bcx): blobs and files devices upload.
import type { ServiceDescriptor } from '../../contract.js';
import { BLOBS, FILES, payloadFiles, removeUnlistedPayloads } from './payloads.js';
import { routes } from './routes.js';
import { blobRecord, fileRecord, uploadTokenRecord } from './schemas.js';
import { UPLOAD_TOKENS } from './upload-tokens.js';

export const binaryDataCollection: ServiceDescriptor = {
  prefix: 'bcx',
  title: 'Binary data collection',
  serviceGroup: 'device',
  routes,
  collections: {
    [BLOBS.name]: blobRecord,
    [FILES.name]: fileRecord,
    [UPLOAD_TOKENS.name]: uploadTokenRecord,
  },
  secretCollections: [UPLOAD_TOKENS.name],
  async setup(ctx) {
    await removeUnlistedPayloads(ctx);
  },
  async teardown(ctx) {
    await payloadFiles(ctx).dispose();
  },
};
