import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  bitString,
  boolean,
  explicit,
  generalName,
  namedBits,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der.js';

/*
 * Making certificates is what Node's crypto lacks: it reads them (X509Certificate) but cannot write one. The
 * emulator's certificates have one shape (RFC 5280: the authority, server and client certificates below), whose DER
 * bytes der.ts writes; keys, signatures and verification are Node's own.
 */

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';

/** A key pair as PEM: the private key PKCS #8, the public key SPKI. EC P-256: quick to make and to handshake. */
export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export const newKeyPair = (): KeyPair => generateKeyPairSync('ec', { namedCurve: 'P-256' });

export const privateKeyPem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();

const BASIC_CONSTRAINTS = '2.5.29.19';
const KEY_USAGE = '2.5.29.15';
const EXTENDED_KEY_USAGE = '2.5.29.37';
const SUBJECT_ALT_NAME = '2.5.29.17';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
/** Key usage bits (RFC 5280 4.2.1.3). */
const DIGITAL_SIGNATURE = 0;
const KEY_AGREEMENT = 4;
const KEY_CERT_SIGN = 5;
const CRL_SIGN = 6;

function distinguishedName(commonName: string): Buffer {
  const attribute = (type: string, value: string) => set(sequence(objectIdentifier(type), utf8String(value)));
  return sequence(attribute(ORGANIZATION, 'platform-emu'), attribute(COMMON_NAME, commonName));
}

/** An extension: its id, `critical` only when true (DER leaves a default out), the value's DER in an OCTET STRING. */
const extension = (id: string, value: Buffer, critical = false) =>
  sequence(objectIdentifier(id), ...(critical ? [boolean(true)] : []), octetString(value));

/** 16 random bytes, positive and with no leading zero byte (RFC 5280: at most 20 octets, positive). */
function serialNumber(): Buffer {
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;
  return serial;
}

function toPem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

export interface CertificateRequest {
  commonName: string;
  publicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  /** The issuer's common name and key; absent for a self-signed certificate (the CA's). */
  issuer?: { commonName: string; privateKey: KeyObject };
  /** Self-signing needs the subject's private key. */
  privateKey?: KeyObject;
  kind: 'authority' | 'server' | 'client';
  /** Server certificates: the DNS names and IP addresses it covers. */
  names?: readonly string[];
}

function extensionsFor(request: CertificateRequest): Buffer[] {
  if (request.kind === 'authority') {
    return [
      extension(BASIC_CONSTRAINTS, sequence(boolean(true), smallInteger(0)), true),
      extension(KEY_USAGE, namedBits([KEY_CERT_SIGN, CRL_SIGN]), true),
    ];
  }
  const usage = request.kind === 'server' ? SERVER_AUTH : CLIENT_AUTH;
  const made = [
    extension(BASIC_CONSTRAINTS, sequence(), true),
    extension(KEY_USAGE, namedBits([DIGITAL_SIGNATURE, KEY_AGREEMENT]), true),
    extension(EXTENDED_KEY_USAGE, sequence(objectIdentifier(usage))),
  ];
  if (request.names?.length) made.push(extension(SUBJECT_ALT_NAME, sequence(...request.names.map(generalName))));
  return made;
}

/** A certificate (X.509 v3), DER-encoded here and signed (ECDSA with SHA-256) by Node's crypto; as PEM. */
export function makeCertificate(request: CertificateRequest): string {
  const signingKey = request.issuer?.privateKey ?? request.privateKey;
  if (!signingKey) throw new Error('A self-signed certificate needs its private key.');
  const algorithm = sequence(objectIdentifier(ECDSA_WITH_SHA256));
  const tbsCertificate = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serialNumber()),
    algorithm,
    distinguishedName(request.issuer?.commonName ?? request.commonName),
    sequence(time(request.notBefore), time(request.notAfter)),
    distinguishedName(request.commonName),
    request.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensionsFor(request))),
  );
  const signature = sign('sha256', tbsCertificate, signingKey);
  return toPem(sequence(tbsCertificate, algorithm, bitString(signature)));
}
