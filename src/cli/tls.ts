import { Command, Option } from 'commander';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DEFAULT_EMULATOR_URL } from '../client/defaults.js';
import { adminTokenFor, CliError, dataOption, runningUrl, urlOption } from './shared.js';

interface TargetOptions {
  url?: string;
  data: string;
}

interface ClientCertOptions extends TargetOptions {
  tenant?: string;
  cn?: string;
  ttl?: string;
  out: string;
  json?: boolean;
}

/** The running emulator's REST side, with a token of the tenant when it runs with auth on. */
async function clientFor(url: string, options: TargetOptions & { tenant?: string }) {
  const { EmulatorClient } = await import('../client/http-client.js');
  const client = new EmulatorClient(url);
  client.adminToken = adminTokenFor(url, options);
  const health = await client.health().catch((err: Error) => {
    throw new CliError(`No emulator answers at ${url}: ${err.message}`);
  });
  if (health.auth === 'on') client.accessToken = await client.issueToken({ tenant: options.tenant });
  else if (options.tenant && options.tenant !== health.defaultTenant) {
    throw new CliError(
      `With --auth off every request acts in the default tenant (${health.defaultTenant}); start with --auth ` +
        `on to use --tenant ${options.tenant}.`,
      2,
    );
  }
  return client;
}

/** The root certificate: from the running emulator, else from the data directory of a stopped one. */
async function rootCertificate(options: TargetOptions): Promise<string> {
  const url = runningUrl(options);
  if (url || options.url) {
    const client = await clientFor(url ?? DEFAULT_EMULATOR_URL, options);
    const response = await client.request('GET', '/_emu/tls/ca.pem');
    if (response.status !== 200) throw new CliError(`GET ${url}/_emu/tls/ca.pem answered ${response.status}.`);
    return response.raw.toString('utf8');
  }
  const { rootCertificateOf } = await import('../data-dir.js');
  const certificate = await rootCertificateOf(options.data).catch((err: Error) => {
    throw new CliError(err.message);
  });
  if (!certificate) {
    throw new CliError(
      `No emulator runs on ${options.data}, and it has no certificate authority yet: start the emulator on it ` +
        `once (or pass --url).`,
    );
  }
  return certificate;
}

async function printCa(options: TargetOptions): Promise<void> {
  process.stdout.write(await rootCertificate(options));
}

interface Generated {
  id: string;
  commonName: string;
  invalidAfter: string;
  certificateChain: string;
  privateKey: string;
}

/**
 * Writes `client.crt`, `client.key` (0600) and `ca.pem` for a paho client's `tls_set`, and prints the credential id.
 */
async function clientCert(options: ClientCertOptions): Promise<void> {
  const url = runningUrl(options) ?? DEFAULT_EMULATOR_URL;
  const client = await clientFor(url, options);
  const body = {
    ...(options.cn !== undefined ? { commonName: options.cn } : {}),
    ...(options.ttl !== undefined ? { ttl: options.ttl } : {}),
  };
  const response = await client.request('POST', '/ccm/api/v1/x509-credentials/generate', { json: body });
  if (response.status !== 201) {
    const message = (response.json as { message?: string } | undefined)?.message ?? response.raw.toString('utf8');
    throw new CliError(
      `The credentials manager refused: ${response.status} ${message}`,
      response.status === 400 ? 2 : 1,
    );
  }
  const generated = response.json as Generated;
  const ca = (await client.request('GET', '/_emu/tls/ca.pem')).raw.toString('utf8');
  const dir = resolve(options.out);
  await mkdir(dir, { recursive: true });
  const keyFile = join(dir, 'client.key');
  await writeFile(keyFile, generated.privateKey, { mode: 0o600 });
  await chmod(keyFile, 0o600);
  await writeFile(join(dir, 'client.crt'), generated.certificateChain);
  await writeFile(join(dir, 'ca.pem'), ca);
  if (options.json) {
    process.stdout.write(
      JSON.stringify({
        id: generated.id,
        commonName: generated.commonName,
        invalidAfter: generated.invalidAfter,
        dir,
      }) + '\n',
    );
    return;
  }
  process.stdout.write(`${generated.id}\n`);
  process.stderr.write(
    `CN ${generated.commonName}, valid until ${generated.invalidAfter}: ${join(dir, 'client.crt')}, ` +
      `${keyFile} (0600), ${join(dir, 'ca.pem')}\n`,
  );
}

export function tlsCommand(): Command {
  const tls = new Command('tls')
    .description('The local certificate authority and client certificates for MQTT over TLS.')
    .addHelpText(
      'after',
      '\nExamples:\n  $ platform-emu tls ca > ca.pem\n  $ platform-emu tls client-cert --cn meter-001 --out certs',
    );
  tls
    .command('ca')
    .description("Print the root certificate (PEM) TLS clients trust: the running emulator's, or the data directory's.")
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      '\nExamples:\n  $ platform-emu tls ca > ca.pem\n  $ platform-emu tls ca --url http://127.0.0.1:8080 > ca.pem',
    )
    .action(printCa);
  tls
    .command('client-cert')
    .description(
      'Generate a client certificate in the credentials manager; write client.crt, client.key (0600) and ' +
        'ca.pem; print its credential id.',
    )
    .option('--tenant <tenant>', 'tenant that holds the certificate (with --auth on; default: the default tenant)')
    .option('--cn <name>', 'Common Name (default: generated)')
    .option('--ttl <duration>', 'ISO 8601 lifetime from the emulator clock, PT1M to P3650D (default P365D)')
    .addOption(new Option('--out <dir>', 'directory to write the three files to').default('.'))
    .option('--json', 'print { id, commonName, invalidAfter, dir } instead of the id')
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      `
The private key is shown once (the credentials manager never stores it). The files are what a paho client's
tls_set(ca_certs="ca.pem", certfile="client.crt", keyfile="client.key") and mqtt.js' { ca, cert, key } read.

Examples:
  $ platform-emu tls client-cert --cn meter-001 --out certs
  $ platform-emu tls client-cert --ttl P30D --out certs --json`,
    )
    .action(clientCert);
  return tls;
}
