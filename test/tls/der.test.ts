import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeCertificate, newKeyPair } from '../../src/tls/certificates.js';

// The certificates src/tls/der.ts writes, read back by Node's own X.509 parser (OpenSSL): what TLS peers read.
const authorityKeys = newKeyPair();
const authority = new X509Certificate(
  makeCertificate({
    kind: 'authority',
    commonName: 'test CA',
    publicKey: authorityKeys.publicKey,
    privateKey: authorityKeys.privateKey,
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2046-01-01T00:00:00Z'),
  }),
);

function issued(kind: 'server' | 'client', commonName: string, names: string[], notAfter: Date) {
  return new X509Certificate(
    makeCertificate({
      kind,
      commonName,
      names,
      publicKey: newKeyPair().publicKey,
      issuer: { commonName: 'test CA', privateKey: authorityKeys.privateKey },
      notBefore: new Date('2026-01-01T00:00:00.750Z'),
      notAfter,
    }),
  );
}

describe('certificates written by the DER encoder', () => {
  it('an authority: self-signed, a CA, its names and dates', () => {
    expect(authority.ca).toBe(true);
    expect(authority.verify(authorityKeys.publicKey)).toBe(true);
    expect(authority.subject).toBe('O=platform-emu\nCN=test CA');
    expect(authority.issuer).toBe(authority.subject);
    expect(new Date(authority.validFrom).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(new Date(authority.validTo).toISOString()).toBe('2046-01-01T00:00:00.000Z');
  });

  it('a server certificate: issued by the authority, every kind of name, a date past 2049 (GeneralizedTime)', () => {
    const names = ['localhost', '127.0.0.1', '::1', '0.0.0.0', '::', 'fe80::1:2', '::ffff:10.0.0.1', 'emu.example'];
    const server = issued('server', 'localhost', names, new Date('2051-06-30T12:34:56Z'));
    expect(server.ca).toBe(false);
    expect(server.checkIssued(authority)).toBe(true);
    expect(server.verify(authority.publicKey)).toBe(true);
    expect(server.subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:0.0.0.0, ' +
        'IP Address:0:0:0:0:0:0:0:0, IP Address:FE80:0:0:0:0:0:1:2, IP Address:0:0:0:0:0:FFFF:A00:1, DNS:emu.example',
    );
    // Seconds only: the fraction is dropped, as DER times have none.
    expect(new Date(server.validFrom).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(new Date(server.validTo).toISOString()).toBe('2051-06-30T12:34:56.000Z');
    expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('a client certificate: a long name in UTF-8 (lengths past 127 bytes), for client authentication', () => {
    const commonName = `métér-${'x'.repeat(150)}`;
    const client = issued('client', commonName, [], new Date('2030-01-01T00:00:00Z'));
    expect(client.subject).toBe(`O=platform-emu\nCN=${commonName}`);
    expect(client.verify(authority.publicKey)).toBe(true);
    expect(client.subjectAltName).toBeUndefined();
    expect(client.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
  });
});
