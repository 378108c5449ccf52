import { randomBytes } from 'node:crypto';
import { makeCertificate, newKeyPair, privateKeyPem } from './certificates.js';

const DAY_MS = 24 * 3600 * 1000;
const CA_LIFETIME_MS = 20 * 365 * DAY_MS;

/** A certificate authority as `tls-ca.json` holds it: its root certificate and private key, both PEM. */
export interface StoredAuthority {
  certificate: string;
  privateKey: string;
}

/** A new certificate authority (ECDSA P-256, twenty years), self-signed. */
export function newAuthority(): StoredAuthority {
  const { privateKey, publicKey } = newKeyPair();
  const now = Date.now();
  const certificate = makeCertificate({
    kind: 'authority',
    commonName: `platform-emu local CA ${randomBytes(4).toString('hex')}`,
    publicKey,
    privateKey,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + CA_LIFETIME_MS),
  });
  return { certificate, privateKey: privateKeyPem(privateKey) };
}
