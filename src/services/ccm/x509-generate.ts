import { randomBytes } from 'node:crypto';
import { parseDuration } from '../../clock.js';
import type { EmuContext } from '../../context.js';
import { badRequest } from '../../server/errors.js';
import { authorityOf } from '../../tls/authority.js';
import { createX509Credential, type X509Credential } from './x509-credentials.js';

/** `ttl` of a generated certificate: ISO 8601, from a minute to ten years (the local authority lives twenty). */
export const DEFAULT_TTL = 'P365D';
const MIN_TTL_MS = 60 * 1000;
const MAX_TTL_MS = 3650 * 24 * 3600 * 1000;

/**
 * A Common Name the platform would take: 1 to 64 characters (X.520's upper bound), letters, digits and `-._:@`
 * and spaces inside; it names a device, so no control characters, quotes, slashes, commas or `=` (which would
 * read as more of the subject) and no leading or trailing space.
 */
export const COMMON_NAME_PATTERN = /^[A-Za-z0-9._:@-](?:[A-Za-z0-9 ._:@-]{0,62}[A-Za-z0-9._:@-])?$/;

export interface GenerateRequest {
  commonName?: string;
  ttl?: string;
}

export interface Generated {
  credential: X509Credential;
  /** The client certificate, then the local authority's root certificate. */
  certificateChain: string;
  /** PKCS #8 PEM; returned once, never stored. */
  privateKey: string;
}

function ttlMs(ttl: string): number {
  if (!/^P/i.test(ttl))
    throw badRequest(`ttl must be an ISO 8601 duration such as P365D or PT12H; got ${JSON.stringify(ttl)}.`);
  let ms: number;
  try {
    ms = parseDuration(ttl);
  } catch (err) {
    throw badRequest(`ttl: ${(err as Error).message}`);
  }
  if (ms < MIN_TTL_MS || ms > MAX_TTL_MS) throw badRequest(`ttl must be from PT1M to P3650D; got ${ttl}.`);
  return ms;
}

/**
 * `POST /x509-credentials/generate`: a key pair and a certificate the local authority signs, valid for `ttl` from
 * the emulator's clock, kept as Inactive X.509 credentials of the tenant. The private key is in the answer only.
 */
export async function generateX509Credential(
  ctx: EmuContext,
  tenantId: string,
  request: GenerateRequest,
): Promise<Generated> {
  const commonName = request.commonName ?? `device-${randomBytes(6).toString('hex')}`;
  if (!COMMON_NAME_PATTERN.test(commonName)) {
    throw badRequest(
      `commonName must be 1 to 64 letters, digits, spaces (not at either end) or -._:@; got ` +
        `${JSON.stringify(commonName)}.`,
    );
  }
  const lifetime = ttlMs(request.ttl ?? DEFAULT_TTL);
  const authority = await authorityOf(ctx);
  const from = ctx.clock.now();
  const issued = authority.issueClient(commonName, from, new Date(from.getTime() + lifetime));
  const credential = await createX509Credential(ctx, tenantId, issued.certificate);
  return {
    credential,
    certificateChain: `${issued.certificate}${authority.certificate}`,
    privateKey: issued.privateKey,
  };
}
