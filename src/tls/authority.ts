import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { runtimeOf, type EmuContext } from '../context.js';
import { DirectorySecret } from '../store/directory-secret.js';
import { replaceFileDurably } from '../store/snapshot-file.js';
import { makeCertificate, newKeyPair, privateKeyPem } from './certificates.js';
import { newAuthority, type StoredAuthority } from './new-authority.js';

/** The file of a data directory's certificate authority: beside `signing-key.json`, mode 600, never exported. */
export const CA_FILE = 'tls-ca.json';

const DAY_MS = 24 * 3600 * 1000;
/** Server certificates are made by each run that needs one; a year is more than any run. */
const SERVER_LIFETIME_MS = 365 * DAY_MS;
/** Clocks of client and server may differ a little: a certificate is valid from a minute before it was made. */
const CLOCK_SKEW_MS = 60 * 1000;

/** A certificate and its private key, both PEM. */
export interface IssuedCertificate {
  certificate: string;
  privateKey: string;
}

export class CertificateAuthority {
  readonly commonName: string;

  constructor(
    /** The root certificate (PEM): what clients trust, "Get root certificate" of the platform. */
    readonly certificate: string,
    private readonly privateKey: KeyObject,
  ) {
    this.commonName = /CN=([^\n]*)/.exec(new X509Certificate(certificate).subject)?.[1] ?? 'platform-emu local CA';
  }

  static create(): CertificateAuthority {
    const { certificate, privateKey } = newAuthority();
    return new CertificateAuthority(certificate, createPrivateKey(privateKey));
  }

  /**
   * A server certificate for these host names and addresses, valid from now (the machine's time: TLS clients check it).
   */
  issueServer(names: readonly string[]): IssuedCertificate {
    const { privateKey, publicKey } = newKeyPair();
    const now = Date.now();
    const certificate = makeCertificate({
      kind: 'server',
      commonName: names[0] ?? 'localhost',
      names,
      publicKey,
      issuer: { commonName: this.commonName, privateKey: this.privateKey },
      notBefore: new Date(now - CLOCK_SKEW_MS),
      notAfter: new Date(now + SERVER_LIFETIME_MS),
    });
    return { certificate, privateKey: privateKeyPem(privateKey) };
  }

  /** The same, as the `cert` and `key` options of Node's TLS servers. */
  issueServerPem(names: readonly string[]): { cert: string; key: string } {
    const { certificate, privateKey } = this.issueServer(names);
    return { cert: certificate, key: privateKey };
  }

  /** A client certificate, valid from `from` (the emulator's clock) to `until`. */
  issueClient(commonName: string, from: Date, until: Date): IssuedCertificate {
    const { privateKey, publicKey } = newKeyPair();
    const certificate = makeCertificate({
      kind: 'client',
      commonName,
      publicKey,
      issuer: { commonName: this.commonName, privateKey: this.privateKey },
      notBefore: new Date(from.getTime() - CLOCK_SKEW_MS),
      notAfter: until,
    });
    return { certificate, privateKey: privateKeyPem(privateKey) };
  }

  toStored(): StoredAuthority {
    return { certificate: this.certificate, privateKey: privateKeyPem(this.privateKey) };
  }

  static fromStored(stored: StoredAuthority, source: string): CertificateAuthority {
    try {
      const privateKey = createPrivateKey(stored.privateKey);
      const certificate = new X509Certificate(stored.certificate);
      if (!certificate.publicKey.equals(createPublicKey(privateKey)))
        throw new Error('its certificate and private key do not match');
      return new CertificateAuthority(stored.certificate, privateKey);
    } catch (err) {
      throw new Error(`${source} does not hold a certificate authority: ${(err as Error).message}`);
    }
  }
}

let processAuthority: CertificateAuthority | undefined;

/** In-memory emulators of one process share one authority, as they share one signing key: tests start many. */
export function inMemoryAuthority(): CertificateAuthority {
  return (processAuthority ??= CertificateAuthority.create());
}

/** A data directory's authority, or undefined where it has none yet. */
export async function readAuthority(dir: string): Promise<CertificateAuthority | undefined> {
  const path = join(dir, CA_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path} is unreadable: ${(err as Error).message}`);
  }
  let stored: StoredAuthority;
  try {
    stored = JSON.parse(text) as StoredAuthority;
  } catch (err) {
    throw new Error(`${path} is not JSON: ${(err as Error).message}`);
  }
  return CertificateAuthority.fromStored(stored, path);
}

/** A new authority, made in a worker thread (the ASN.1 library loads there, not on the main thread). */
function authorityInWorker(): Promise<CertificateAuthority> {
  return new Promise<StoredAuthority>((resolve, reject) => {
    const worker = new Worker(new URL('./authority-worker.js', import.meta.url));
    worker.unref();
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the worker making the certificate authority ended (${code})`)));
  }).then((stored) => CertificateAuthority.fromStored(stored, 'the certificate authority made in a worker'));
}

/**
 * A data directory's authority as an emulator holds it: read from its file when first asked for (a start asks), else
 * made once, in a worker (a failed worker is no failed start: then on the main thread), and saved.
 */
export function directoryAuthority(ctx: EmuContext): Promise<DirectorySecret<CertificateAuthority>> {
  const dir = ctx.config.dataDir!;
  return runtimeOf(
    ctx,
    'tls:authority',
    async () =>
      new DirectorySecret(
        {
          what: 'certificate authority',
          make: () => authorityInWorker().catch(() => CertificateAuthority.create()),
          makeNow: () => CertificateAuthority.create(),
          save: (authority) => replaceFileDurably(join(dir, CA_FILE), JSON.stringify(authority.toStored(), null, 2)),
          warn: ctx.log,
        },
        await readAuthority(dir),
      ),
  );
}

/** The authority of an emulator's context: its data directory's, or the process's in memory. */
export async function authorityOf(ctx: EmuContext): Promise<CertificateAuthority> {
  return ctx.config.dataDir ? (await directoryAuthority(ctx)).made() : inMemoryAuthority();
}
