import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import { resolveConfig } from '../config.js';
import { collect, CliError, closeOffline, dataOption, emulatorJson, parsePositiveInt, runningUrl, urlOption } from './shared.js';

interface TokenOptions {
  tenant?: string;
  scope?: string[];
  ttl: number;
  json?: boolean;
  data: string;
  url?: string;
}

interface Issued {
  token: string;
}

async function issueOffline(options: TokenOptions): Promise<Issued> {
  const config = resolveConfig({ dataDir: resolve(options.data) });
  const [{ openContext }, { issueTestToken }] = await Promise.all([import('../emulator.js'), import('../services/oidc/test-tokens.js')]);
  const ctx = await openContext(config, (m) => process.stderr.write(`warning: ${m}\n`), true).catch((err: Error) => {
    throw new CliError(`${err.message} Or pass --url of a running emulator.`);
  });
  try {
    return issueTestToken(ctx, { tenant: options.tenant, scopes: options.scope, ttlSeconds: options.ttl, baseUrl: 'http://localhost:8080' });
  } catch (err) {
    throw new CliError((err as Error).message);
  } finally {
    await closeOffline(ctx);
  }
}

async function run(options: TokenOptions): Promise<void> {
  const url = runningUrl(options);
  const issued = url
    ? await emulatorJson<Issued>(url, 'POST', '/_emu/token', { tenant: options.tenant, scopes: options.scope, ttlSeconds: options.ttl }, options)
    : await issueOffline(options);
  const { default: jwt } = await import('jsonwebtoken');
  if (options.json) process.stdout.write(`${JSON.stringify({ ...issued, claims: jwt.decode(issued.token) }, null, 2)}\n`);
  else process.stdout.write(`${issued.token}\n`);
}

export function tokenCommand(): Command {
  return new Command('token')
    .description("Print a signed access token (RS256, the emulator's own realm keys) for a tenant.")
    .addOption(new Option('--tenant <id>', "tenant id or realm name (default: the fixtures' default tenant)"))
    .addOption(new Option('--scope <scope>', "a scope to grant (repeatable, or space/comma-separated; default: all of the tenant's user's scopes)").argParser(collect))
    .addOption(new Option('--ttl <seconds>', 'lifetime in seconds').default(3600).argParser(parsePositiveInt))
    .option('--json', 'print the token with its decoded claims as JSON')
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      `
Works with the emulator running (asks it) or stopped (reads the keys from --data).

Examples:
  $ curl -H "Authorization: Bearer $(platform-emu token)" localhost:8080/epr/api/v1/endpoints
  $ platform-emu token --tenant globex --scope endpoint:read --ttl 60 --json
  $ platform-emu token --url http://127.0.0.1:41234      # an --in-memory emulator`,
    )
    .action(run);
}
