import { Command, Option } from 'commander';
import chalk from '../colours.js';
import { parseJsonObject, targetOptions, type TargetOptions } from './options.js';

interface RegisterOptions extends TargetOptions {
  appVersion: string;
  metadata?: Record<string, unknown>;
  token?: string;
  id?: string;
  json?: boolean;
}

async function run(options: RegisterOptions): Promise<void> {
  const [{ registerEndpoint }, { asCliError, connectTarget }] = await Promise.all([
    import('../../client/endpoints.js'),
    import('./target.js'),
  ]);
  const { client } = await connectTarget(options);
  const endpoint = await registerEndpoint(client, {
    appVersion: options.appVersion,
    metadata: options.metadata,
    token: options.token,
    endpointId: options.id,
  }).catch((err: unknown) => {
    throw asCliError(err);
  });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(endpoint, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    [
      `${chalk.green('Registered')} endpoint ${chalk.bold(endpoint.endpointId)} in ${endpoint.appVersion}`,
      `  endpointId  ${endpoint.endpointId}`,
      `  token       ${endpoint.token} ${chalk.dim(`(${endpoint.status})`)}`,
      `  location    ${endpoint.location}`,
      chalk.dim(
        `Simulate it: platform-emu device simulate --app-version ${endpoint.appVersion} --token ${endpoint.token}`,
      ),
      '',
    ].join('\n'),
  );
}

export function registerCommand(): Command {
  const command = new Command('register')
    .description('Register an endpoint (POST /epr/api/v1/endpoints) and print its id and token.')
    .requiredOption('--app-version <name>', 'application version to register the endpoint in')
    .addOption(new Option('--metadata <json>', 'metadata as a JSON object').argParser(parseJsonObject))
    .option('--token <token>', 'endpoint token (default: generated; no "+", "#", "/" or ".")')
    .option('--id <endpointId>', 'endpoint id (default: generated UUID)')
    .option('--json', 'print { endpointId, token, status, appVersion, location } as JSON');
  for (const option of targetOptions()) command.addOption(option);
  return command
    .addHelpText(
      'after',
      `
Examples:
  $ platform-emu device register --app-version smart-meter-v1
  $ platform-emu device register --app-version smart-meter-v1 --id meter-100 --token meter-100-token --metadata ` +
        `'{"model":"m1"}'
  $ TOKEN=$(platform-emu device register --app-version tracker-v1 --json | jq -r .token)`,
    )
    .action(run);
}
