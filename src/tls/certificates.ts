import type * as Asn1Schema from '@peculiar/asn1-schema';
import type * as Asn1X509 from '@peculiar/asn1-x509';
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';

/*
 * Making certificates is what Node's crypto lacks: it reads them (X509Certificate) but cannot write one. The ASN.1
 * structures come from @peculiar/asn1-x509 (see docs/devices.md, "TLS and certificates", for why that library);
 * keys, signatures and verification are Node's own.
 */

const require = createRequire(import.meta.url);
let asn1: { schema: typeof Asn1Schema; x509: typeof Asn1X509 } | undefined;

/**
 * The ASN.1 library, required (it is CommonJS) when the first certificate is made: loading it is a good part of a
 * start's module loading, and a start on a directory whose authority exists makes no certificate.
 */
const asn1Library = () =>
  (asn1 ??= {
    schema: require('@peculiar/asn1-schema') as typeof Asn1Schema,
    x509: require('@peculiar/asn1-x509') as typeof Asn1X509,
  });

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

function distinguishedName(commonName: string): Asn1X509.Name {
  const { AttributeTypeAndValue, AttributeValue, Name, RelativeDistinguishedName } = asn1Library().x509;
  const attribute = (type: string, value: string) =>
    new RelativeDistinguishedName([
      new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) }),
    ]);
  return new Name([attribute(ORGANIZATION, 'platform-emu'), attribute(COMMON_NAME, commonName)]);
}

function extension(extnID: string, value: unknown, critical = false): Asn1X509.Extension {
  const { AsnConvert, OctetString } = asn1Library().schema;
  return new (asn1Library().x509.Extension)({
    extnID,
    critical,
    extnValue: new OctetString(AsnConvert.serialize(value)),
  });
}

const arrayBuffer = (bytes: Buffer) =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;

/** 16 random bytes, positive and with no leading zero byte (RFC 5280: at most 20 octets, positive). */
function serialNumber(): Buffer {
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;
  return serial;
}

function toPem(der: ArrayBuffer): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
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

function extensionsFor(request: CertificateRequest): Asn1X509.Extension[] {
  const {
    BasicConstraints,
    ExtendedKeyUsage,
    GeneralName,
    KeyUsage,
    KeyUsageFlags,
    SubjectAlternativeName,
    id_ce_basicConstraints,
    id_ce_extKeyUsage,
    id_ce_keyUsage,
    id_ce_subjectAltName,
    id_kp_clientAuth,
    id_kp_serverAuth,
  } = asn1Library().x509;
  if (request.kind === 'authority') {
    return [
      extension(id_ce_basicConstraints, new BasicConstraints({ cA: true, pathLenConstraint: 0 }), true),
      extension(id_ce_keyUsage, new KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign), true),
    ];
  }
  const usage = request.kind === 'server' ? id_kp_serverAuth : id_kp_clientAuth;
  const made = [
    extension(id_ce_basicConstraints, new BasicConstraints({ cA: false }), true),
    extension(id_ce_keyUsage, new KeyUsage(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyAgreement), true),
    extension(id_ce_extKeyUsage, new ExtendedKeyUsage([usage])),
  ];
  if (request.names?.length) {
    const names = request.names.map((name) => new GeneralName(isIP(name) ? { iPAddress: name } : { dNSName: name }));
    made.push(extension(id_ce_subjectAltName, new SubjectAlternativeName(names)));
  }
  return made;
}

/** A certificate, DER-encoded by the ASN.1 schema and signed (ECDSA with SHA-256) by Node's crypto; as PEM. */
export function makeCertificate(request: CertificateRequest): string {
  const signingKey = request.issuer?.privateKey ?? request.privateKey;
  if (!signingKey) throw new Error('A self-signed certificate needs its private key.');
  const { AsnConvert } = asn1Library().schema;
  const { AlgorithmIdentifier, Certificate, Extensions, SubjectPublicKeyInfo, TBSCertificate, Validity, Version } =
    asn1Library().x509;
  const algorithm = new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 });
  const tbsCertificate = new TBSCertificate({
    version: Version.v3,
    serialNumber: arrayBuffer(serialNumber()),
    signature: algorithm,
    issuer: distinguishedName(request.issuer?.commonName ?? request.commonName),
    validity: new Validity({ notBefore: request.notBefore, notAfter: request.notAfter }),
    subject: distinguishedName(request.commonName),
    subjectPublicKeyInfo: AsnConvert.parse(
      request.publicKey.export({ type: 'spki', format: 'der' }),
      SubjectPublicKeyInfo,
    ),
    extensions: new Extensions(extensionsFor(request)),
  });
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbsCertificate)), signingKey);
  const certificate = new Certificate({
    tbsCertificate,
    signatureAlgorithm: algorithm,
    signatureValue: arrayBuffer(signature),
  });
  return toPem(AsnConvert.serialize(certificate));
}
