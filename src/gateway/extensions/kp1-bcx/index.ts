// KP1 extension bcx (binary data): upload tokens for the binary data collection service.
import { issueUploadToken } from '../../../services/bcx/upload-tokens.js';
import { optionalObject, type Kp1Extension } from '../../extension.js';

/**
 * Binary data (spec 4): the upload token a device sends as `X-Auth-Token` to `POST /bcx/api/v1/binary-data` and
 * `/files/{filename}`.
 */
export const bcx: Kp1Extension = {
  name: 'bcx',
  resources: [
    {
      path: 'token',
      async handle({ ctx, endpoint, payload }) {
        optionalObject(payload, [], 'token');
        return { payload: { token: await issueUploadToken(ctx, endpoint) } };
      },
    },
  ],
};
