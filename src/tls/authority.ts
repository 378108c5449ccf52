import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runtimeOf, type EmuContext } from '../context.js';
import { makeCertificate, newKeyPair, privateKeyPem } from './certificates.js';
import { CA_FILE, takePreparedAuthority } from './early-authority.js';
import { newAuthority, type StoredAuthority } from './new-authority.js';

export { CA_FILE };

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

async function saveAuthority(dir: string, authority: CertificateAuthority): Promise<void> {
  await mkdir(dir, { recursive: true });
  const handle = await open(join(dir, CA_FILE), 'wx', 0o600);
  try {
    await handle.writeFile(JSON.stringify(authority.toStored(), null, 2));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The directory's authority, made and saved on its first start. */
export async function loadOrMakeAuthority(dir: string): Promise<CertificateAuthority> {
  const early = takePreparedAuthority(dir);
  const existing = await readAuthority(dir);
  if (existing) return existing;
  // Made in a worker while the modules loaded (the CLI's start), else here; a failed worker is no failed start.
  const made = early
    ? await early.then(
        (stored) => CertificateAuthority.fromStored(stored, 'the certificate authority made for this start'),
        () => CertificateAuthority.create(),
      )
    : CertificateAuthority.create();
  try {
    await saveAuthority(dir, made);
  } catch (err) {
    // Another process made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await readAuthority(dir))!;
    throw err;
  }
  return made;
}

/** The authority of an emulator's context: its data directory's, or the process's in memory. */
export function authorityOf(ctx: EmuContext): Promise<CertificateAuthority> {
  return runtimeOf(ctx, 'tls:authority', () =>
    ctx.config.dataDir ? loadOrMakeAuthority(ctx.config.dataDir) : Promise.resolve(inMemoryAuthority()),
  );
}
