import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import { DEFAULT_EMULATOR_URL } from '../client/defaults.js';
import {
  collect,
  CliError,
  dataOption,
  emulatorJson,
  lockOf,
  parsePositiveInt,
  runningUrl,
  urlOption,
} from './shared.js';

/** A value the user gave that the emulator does not know (a tenant, a scope): a usage error. */
const BAD_VALUE = 2;

interface TokenOptions {
  tenant?: string;
  scope?: string[];
  platform?: boolean;
  admin?: boolean;
  ttl: number;
  json?: boolean;
  data: string;
  url?: string;
}

interface Issued {
  token: string;
}

async function issueOffline(options: TokenOptions): Promise<Issued> {
  const { openDataDir } = await import('../index.js');
  const stopped = await openDataDir(options.data, { readOnly: true }).catch((err: Error) => {
    throw new CliError(`${err.message} Or pass --url of a running emulator.`);
  });
  try {
    return stopped.token({
      tenant: options.tenant,
      scopes: options.scope,
      platform: options.platform,
      ttlSeconds: options.ttl,
      baseUrl: DEFAULT_EMULATOR_URL,
    });
  } catch (err) {
    throw new CliError((err as Error).message, BAD_VALUE);
  } finally {
    await stopped.close();
  }
}

/** The running emulator's answer; its 400 (an unknown tenant) is a bad value like the offline one. */
async function issueOnline(url: string, options: TokenOptions): Promise<Issued> {
  const { EmulatorHttpError } = await import('../client/http-client.js');
  try {
    return await emulatorJson<Issued>(
      url,
      'POST',
      '/_emu/token',
      { tenant: options.tenant, scopes: options.scope, platform: options.platform, ttlSeconds: options.ttl },
      options,
    );
  } catch (err) {
    if (err instanceof EmulatorHttpError) throw new CliError(err.message, err.status === 400 ? BAD_VALUE : 1);
    throw err;
  }
}

/** Scopes no operation knows are refused before anything is signed: a typo would give a token that opens nothing. */
async function checkScopes(scopes: string[] | undefined): Promise<void> {
  if (!scopes?.length) return;
  const [{ checkKnownScopes }, { services }] = await Promise.all([
    import('../auth/scopes.js'),
    import('../services/index.js'),
  ]);
  try {
    checkKnownScopes(scopes, services);
  } catch (err) {
    throw new CliError((err as Error).message, BAD_VALUE);
  }
}

/**
 * `--admin`: signed here with the data directory's key (the control plane accepts any token of its key with scope
 * `emulator:admin`), else the admin token an in-memory emulator started with `--detach` keeps in its lock.
 */
async function adminToken(options: TokenOptions): Promise<Issued> {
  const dir = resolve(options.data);
  const signed = await (await import('../data-dir.js')).adminTokenOf(dir);
  if (signed) return { token: signed };
  const kept = lockOf(options)?.adminToken;
  if (kept) return { token: kept };
  throw new CliError(
    `${dir} has no signing key and no running emulator there keeps an admin token. ` +
      'An emulator in memory prints its admin token with `start --json` (and `exec` passes it as ' +
      'PLATFORM_EMU_ADMIN_TOKEN).',
  );
}

/** The token's claims, for `--json`: its middle part, base64url JSON (the signature is the emulator's business). */
const claimsOf = (token: string): unknown =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));

async function run(options: TokenOptions): Promise<void> {
  let issued: Issued;
  if (options.admin) {
    if (options.tenant || options.scope || options.platform)
      throw new CliError(
        "--admin makes the control plane's token: it has no tenant and its one scope is emulator:admin.",
        BAD_VALUE,
      );
    issued = await adminToken(options);
  } else {
    await checkScopes(options.scope);
    const url = runningUrl(options);
    issued = url ? await issueOnline(url, options) : await issueOffline(options);
  }
  if (options.json) process.stdout.write(`${JSON.stringify({ ...issued, claims: claimsOf(issued.token) }, null, 2)}\n`);
  else process.stdout.write(`${issued.token}\n`);
}

export function tokenCommand(): Command {
  return new Command('token')
    .description("Print a signed access token (RS256, the emulator's own realm keys) for a tenant.")
    .addOption(new Option('--tenant <id>', "tenant id or realm name (default: the fixtures' default tenant)"))
    .addOption(
      new Option(
        '--scope <scope>',
        "a scope to grant (repeatable, or space/comma-separated; default: all of the tenant's user's scopes)",
      ).argParser(collect),
    )
    .option('--platform', "a platform administrator's token (platform:tenant:... scopes), for the tenant manager")
    .option(
      '--admin',
      'the admin token of the control plane (/_emu) of an emulator with --auth on (scope emulator:admin)',
    )
    .addOption(new Option('--ttl <seconds>', 'lifetime in seconds').default(3600).argParser(parsePositiveInt))
    .option('--json', 'print the token with its decoded claims as JSON')
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      `
Works with the emulator running (asks it) or stopped (reads the keys from --data-dir). An unknown tenant or
scope is a usage error (exit 2) that lists the known ones.

Examples:
  $ curl -H "Authorization: Bearer $(platform-emu token)" localhost:8080/epr/api/v1/endpoints
  $ platform-emu token --tenant globex --scope endpoint:read --ttl 60 --json
  $ platform-emu token --platform                        # the fixtures' platform administrator
  $ curl -XPOST -H "Authorization: Bearer $(platform-emu token --admin)" localhost:8080/_emu/reset
  $ platform-emu token --url http://127.0.0.1:41234      # an --in-memory emulator`,
    )
    .action(run);
}
