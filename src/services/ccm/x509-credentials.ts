import { randomUUID, X509Certificate } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type { x509CredentialRecord } from './schemas.js';
import type { CredentialState } from './basic-credentials.js';

export const X509_CREDENTIALS = collection<X509Credential>('x509-credentials').index(
  'fingerprint',
  (c) => c.fingerprint,
);

/**
 * `serialNumber` is base 10; `fingerprint` (SHA-256: one certificate is one credential) and `certificate` (the PEM,
 * kept for a device's TLS login) are never shown in answers. The record schema leaves `state` a string and
 * `certificate` and `lastUseDate` out, and narrowing it would refuse imports it takes today: the type says what we
 * write.
 */
export type X509Credential = FromSchema<typeof x509CredentialRecord> & {
  state: CredentialState;
  certificate: string;
  lastUseDate?: string;
};

/** The subject's CN (`subject` is one `KEY=value` per line). */
function commonNameOf(certificate: X509Certificate): string | undefined {
  for (const line of certificate.subject.split('\n')) if (line.startsWith('CN=')) return line.slice(3);
  return undefined;
}

/** The certificate's fields as the spec names them; 400 for anything that is not one certificate with a CN. */
export function parseCertificate(
  pem: string,
): Pick<X509Credential, 'serialNumber' | 'commonName' | 'invalidAfter' | 'fingerprint' | 'certificate'> {
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw badRequest('The certificate must be a PEM block starting with -----BEGIN CERTIFICATE-----.');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch (err) {
    throw badRequest(`The certificate cannot be read: ${(err as Error).message}.`);
  }
  const commonName = commonNameOf(certificate);
  if (commonName === undefined) throw badRequest("The certificate's subject has no CN (common name).");
  return {
    serialNumber: BigInt(`0x${certificate.serialNumber}`).toString(10),
    commonName,
    invalidAfter: new Date(certificate.validTo).toISOString(),
    fingerprint: certificate.fingerprint256,
    certificate: certificate.toString(),
  };
}

export function listX509Credentials(ctx: EmuContext, tenantId: string): X509Credential[] {
  return [...X509_CREDENTIALS.values(ctx)]
    .filter((c) => c.tenantId === tenantId)
    .sort((a, b) => a.createdDate.localeCompare(b.createdDate) || a.id.localeCompare(b.id));
}

export function requireX509Credential(ctx: EmuContext, tenantId: string, id: string): X509Credential {
  const credential = X509_CREDENTIALS.get(ctx, id);
  if (!credential || credential.tenantId !== tenantId) throw notFound(`There are no X.509 credentials ${id}.`);
  return credential;
}

/**
 * `POST /x509-credentials` (an emulator addition): Inactive, like new basic credentials; 409 for a registered
 * certificate.
 */
export async function createX509Credential(ctx: EmuContext, tenantId: string, pem: string): Promise<X509Credential> {
  const parsed = parseCertificate(pem);
  if (X509_CREDENTIALS.lookup(ctx, 'fingerprint', parsed.fingerprint).length > 0) {
    throw conflict(`This certificate (SHA-256 ${parsed.fingerprint}) is already registered.`);
  }
  const now = ctx.clock.nowIso();
  const credential: X509Credential = {
    tenantId,
    id: randomUUID(),
    state: 'Inactive',
    ...parsed,
    createdDate: now,
    updatedDate: now,
  };
  await X509_CREDENTIALS.put(ctx, credential.id, credential);
  return credential;
}
