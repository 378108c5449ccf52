import { randomBytes } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { HttpError } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection, type Mutation } from '../../store/index.js';
import { findEndpoint, type Endpoint } from '../epr/endpoints.js';
import type { uploadTokenRecord } from './schemas.js';

export const UPLOAD_TOKENS = collection<UploadToken>('upload-tokens').index('endpoint', (t) => t.endpointId);

/** An endpoint's upload token (`X-Auth-Token`): kept in the state, so that it outlives a restart. */
export type UploadToken = FromSchema<typeof uploadTokenRecord>;

/**
 * A new upload token for the endpoint, valid for `--upload-token-ttl` seconds (default one hour); earlier tokens
 * stay valid until they expire. The endpoint's expired tokens are dropped in the same commit.
 */
export async function issueUploadToken(ctx: EmuContext, endpoint: Endpoint): Promise<string> {
  const now = ctx.clock.now();
  const token = randomBytes(24).toString('base64url');
  const record: UploadToken = {
    token,
    tenantId: endpoint.tenantId,
    endpointId: endpoint.endpointId,
    issuedDate: now.toISOString(),
    expiresDate: new Date(now.getTime() + ctx.config.uploadTokenTtl * 1000).toISOString(),
  };
  const expired: Mutation[] = UPLOAD_TOKENS.lookup(ctx, 'endpoint', endpoint.endpointId)
    .filter((t) => Date.parse(t.expiresDate) <= now.getTime())
    .map((t) => UPLOAD_TOKENS.deleteMutation(t.token));
  await ctx.store.commit([...expired, UPLOAD_TOKENS.putMutation(token, record)]);
  return token;
}

const forbidden = (message: string) => new HttpError(403, message);

/** The endpoint an upload is bound to: 403 for a missing, unknown or expired `X-Auth-Token`. */
export function uploaderOf(ctx: EmuContext, token: string | undefined): Endpoint {
  if (!token)
    throw forbidden(
      'This upload needs the header X-Auth-Token: an upload token the endpoint gets over KP1 ' +
        '(kp1/<appVersionName>/bcx/<endpointToken>/token).',
    );
  const record = UPLOAD_TOKENS.get(ctx, token);
  if (!record)
    throw forbidden(
      'The X-Auth-Token is not an upload token of this emulator; get one with ' +
        'kp1/<appVersionName>/bcx/<endpointToken>/token.',
    );
  if (Date.parse(record.expiresDate) <= ctx.clock.nowMs()) {
    throw forbidden(
      `The X-Auth-Token expired at ${record.expiresDate}; get a new one with ` +
        `kp1/<appVersionName>/bcx/<endpointToken>/token.`,
    );
  }
  const endpoint = findEndpoint(ctx, record.tenantId, record.endpointId);
  if (!endpoint)
    throw forbidden(`The X-Auth-Token belongs to endpoint ${record.endpointId}, which is no longer registered.`);
  return endpoint;
}
