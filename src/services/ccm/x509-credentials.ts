import { randomUUID, X509Certificate } from 'node:crypto';
import type { EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import { CREDENTIAL_CHANGED, type CredentialChange } from '../../server/events.js';
import type { FromSchema } from '../../contract.js';
import { collection } from '../../store/index.js';
import type { x509CredentialRecord } from './schemas.js';
import { PERMITTED_MOVES, type CredentialState } from './basic-credentials.js';

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

/** The credential a certificate is (by its SHA-256 fingerprint), in whichever tenant holds it. */
export function findX509ByFingerprint(ctx: EmuContext, fingerprint: string): X509Credential | undefined {
  return X509_CREDENTIALS.lookup(ctx, 'fingerprint', fingerprint)[0];
}

/**
 * `POST /x509-credentials` (an emulator addition): Inactive, like new basic credentials; 409 for a registered
 * certificate.
 */
export async function createX509Credential(ctx: EmuContext, tenantId: string, pem: string): Promise<X509Credential> {
  const parsed = parseCertificate(pem);
  if (findX509ByFingerprint(ctx, parsed.fingerprint)) {
    // A certificate is one credential of one tenant: the tenant that holds it is the tenant it logs in to.
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

/**
 * `PATCH /x509-credentials/{id}/state`: the moves basic credentials have; a suspension or revocation disconnects its
 * clients.
 */
export async function changeX509State(
  ctx: EmuContext,
  tenantId: string,
  id: string,
  state: CredentialState,
): Promise<void> {
  const credential = requireX509Credential(ctx, tenantId, id);
  if (credential.state === state) return;
  const allowed = PERMITTED_MOVES[credential.state];
  if (!allowed.includes(state)) {
    throw badRequest(
      `X.509 credentials in state ${credential.state} cannot move to ` +
        `${state}${allowed.length ? `; permitted: ${allowed.join(', ')}` : ' (Revoked is final)'}.`,
    );
  }
  await X509_CREDENTIALS.put(ctx, id, { ...credential, state, updatedDate: ctx.clock.nowIso() });
  ctx.events.emit(CREDENTIAL_CHANGED, { kind: 'x509', id, tenantId, state } satisfies CredentialChange);
}

/** Why a certificate cannot log in now, or undefined: its state, or its validity on the emulator's clock. */
export function x509Refusal(ctx: EmuContext, credential: X509Credential, validFrom: string): string | undefined {
  if (credential.state === 'Suspended' || credential.state === 'Revoked')
    return `its X.509 credentials ${credential.id} are ${credential.state}`;
  const now = ctx.clock.nowMs();
  if (now > Date.parse(credential.invalidAfter))
    return `the certificate expired at ${credential.invalidAfter} (the emulator's clock reads ${ctx.clock.nowIso()})`;
  if (now < Date.parse(validFrom)) return `the certificate is valid only from ${new Date(validFrom).toISOString()}`;
  return undefined;
}

/** A certificate logged in: its first use makes it Active; every use sets `lastUseDate`. */
export async function recordX509Use(ctx: EmuContext, id: string): Promise<void> {
  const credential = X509_CREDENTIALS.get(ctx, id);
  if (!credential) return;
  const now = ctx.clock.nowIso();
  const firstUse = credential.state === 'Inactive' ? { state: 'Active' as const, updatedDate: now } : {};
  await X509_CREDENTIALS.put(ctx, id, { ...credential, ...firstUse, lastUseDate: now });
}
