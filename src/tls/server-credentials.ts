import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { EmuContext } from '../context.js';
import { listensEverywhere } from '../config.js';
import { authorityOf } from './authority.js';

/** The certificate and key MQTTS and HTTPS present. */
export interface ServerCredentials {
  cert: string;
  key: string;
}

/** The server credentials, when first needed: the first MQTTS connection, or the start of HTTPS. */
export type ServerCredentialsSource = () => Promise<ServerCredentials>;

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** The names a server certificate covers: loopback, the `--allow-host` names, and the address bound to. */
export function serverNames(ctx: EmuContext): string[] {
  const { host, allowHosts } = ctx.config;
  const bound = listensEverywhere(host) ? [] : [host];
  return [...new Set([...LOOPBACK_NAMES, ...allowHosts, ...bound].map((name) => name.replace(/^\[|\]$/g, '')))];
}

async function readPem(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`The ${what} ${path} cannot be read: ${(err as Error).message}`);
  }
}

/**
 * `--tls-cert`/`--tls-key`, read and checked to be a certificate and its key at start; else one the local authority
 * signs when first asked for (making a certificate loads the ASN.1 library: a start that no TLS client reaches makes
 * none).
 */
export async function serverCredentials(ctx: EmuContext): Promise<ServerCredentialsSource> {
  const { tlsCert, tlsKey } = ctx.config;
  if (!tlsCert && !tlsKey) {
    let issued: Promise<ServerCredentials> | undefined;
    return () => (issued ??= authorityOf(ctx).then((authority) => authority.issueServerPem(serverNames(ctx))));
  }
  const given = await userCredentials(tlsCert, tlsKey);
  return () => Promise.resolve(given);
}

async function userCredentials(tlsCert: string | undefined, tlsKey: string | undefined): Promise<ServerCredentials> {
  if (!tlsCert || !tlsKey)
    throw new Error('--tls-cert and --tls-key go together: give the certificate and its private key.');
  const [cert, key] = await Promise.all([
    readPem(tlsCert, 'certificate (--tls-cert)'),
    readPem(tlsKey, 'private key (--tls-key)'),
  ]);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (err) {
    throw new Error(`--tls-cert ${tlsCert} is not a PEM certificate: ${(err as Error).message}`);
  }
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(key))) throw new Error("it is not the certificate's key");
  } catch (err) {
    throw new Error(`--tls-key ${tlsKey} does not go with --tls-cert ${tlsCert}: ${(err as Error).message}`);
  }
  return { cert, key };
}
