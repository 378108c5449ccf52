import { Command, InvalidArgumentError, Option } from 'commander';
import { parseTelemetrySpec } from '../../simulator/telemetry.js';
import { CliError, collect, parsePositiveInt } from '../shared.js';
import { parseJsonObject, targetOptions, type SimulateOptions } from './options.js';

export type { SimulateOptions };

/** Checked here (a usage error at once), kept as text: a fleet over worker threads parses it in each. */
function telemetrySpec(value: string): string {
  try {
    parseTelemetrySpec(value);
    return value;
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

async function run(options: SimulateOptions): Promise<void> {
  // Without a terminal the prompt would wait forever for keys nobody can type.
  if (options.interactive && !process.stdin.isTTY) {
    throw new CliError(
      '--interactive needs a terminal (stdin is not a TTY); answer by --rules when running unattended.',
      2,
    );
  }
  // The MQTT client, inquirer and ajv load only when a simulation runs, not for every `platform-emu --help`.
  await (await import('./simulation.js')).runSimulation(options);
}

export function simulateCommand(): Command {
  const command = new Command('simulate')
    .description(
      'Connect as one or more devices over MQTT (KP1) and answer commands: echo by default, or per rules, or ' +
        'interactively.',
    )
    .requiredOption('--app-version <name>', 'application version of the device(s)')
    .addOption(
      new Option(
        '--token <token>',
        'endpoint token (repeatable or comma-separated; with --fleet, a pattern like meter-{nnn}-token)',
      ).argParser(collect),
    )
    .option('--register', 'register the device(s) first (tokens and ids generated unless --token/--id are given)')
    .option('--id <endpointId>', 'endpoint id to register (with --register; with --fleet, a pattern like meter-{nnn})')
    .addOption(new Option('--fleet <n>', 'simulate n devices').argParser(parsePositiveInt))
    .addOption(
      new Option(
        '--workers <n>',
        'spread the fleet over n worker threads (default: one per 2,500 devices, at most one per core; 1 = this ' +
          'thread only)',
      ).argParser(parsePositiveInt),
    )
    .option(
      '--rules <file>',
      'JSON rules: per command type the status code, reason, payload (template) and delay (see docs/cli.md)',
    )
    .option('--interactive', 'ask what to answer for each command (needs a terminal)')
    .addOption(
      new Option('--metadata <json>', 'metadata (JSON object) published on connect (epmx update/keys)').argParser(
        parseJsonObject,
      ),
    )
    .addOption(
      new Option(
        '--telemetry <spec>',
        'data samples to publish (dcx json), like "temperature=20..25,state=on|off,n=seq"',
      ).argParser(telemetrySpec),
    )
    .addOption(
      new Option('--interval <ms>', 'milliseconds between telemetry samples').default(1000).argParser(parsePositiveInt),
    )
    .option('--no-config', 'do not ask for the configuration (cmx); by default it is applied and reported applied')
    .addOption(
      new Option('--reject-config', 'report every configuration offered as rejected (statusCode 400)').conflicts(
        'config',
      ),
    )
    .option(
      '--config-name <name...>',
      'also observe these named configurations (cmx config/json/<name>), each handled like the default one',
    )
    .option(
      '--no-software',
      'do not ask for software (cmx_ota); by default each version offered is applied and reported applied',
    )
    .addOption(
      new Option('--reject-software', 'report every software version offered as rejected (statusCode 400)').conflicts(
        'software',
      ),
    )
    .option('--upload <file>', 'upload this file once as a blob (bcx upload token, then POST /bcx/api/v1/binary-data)')
    .option(
      '--json',
      'one JSON line per event on stdout (registered, connected, metadata, config, config-applied, ' +
        'config-rejected, software, software-applied, software-rejected, uploaded, command, answered, ignored, ' +
        'telemetry, error, stopped)',
    )
    .addOption(
      new Option('--mqtt-url <url>', "MQTT URL of the KP1 broker (default: the emulator's, from /_emu/health)").env(
        'PLATFORM_EMU_MQTT_URL',
      ),
    )
    .addOption(
      new Option('--username <name>', 'MQTT login user name (for an emulator started with --mqtt-auth basic)').env(
        'PLATFORM_EMU_MQTT_USERNAME',
      ),
    )
    .addOption(new Option('--password <password>', 'MQTT login password').env('PLATFORM_EMU_MQTT_PASSWORD'))
    .addOption(
      new Option(
        '--qos <level>',
        "QoS of the requests: 0, as the platform's tutorial clients publish, or 1 (a PUBACK each)",
      )
        .choices(['0', '1'])
        .default(0)
        .argParser((value) => {
          if (value !== '0' && value !== '1') throw new InvalidArgumentError('Allowed choices are 0, 1.');
          return Number(value) as 0 | 1;
        }),
    )
    .option('--tls', "connect over MQTT over TLS (the emulator's MQTTS port; its root certificate unless --ca)")
    .addOption(new Option('--ca <file>', 'with --tls: root certificate (PEM) to trust').env('PLATFORM_EMU_CA'))
    .option('--cert <file>', 'with --tls: client certificate (PEM), for mutual TLS (platform-emu tls client-cert)')
    .option('--key <file>', 'with --tls: private key (PEM) of --cert');
  for (const option of targetOptions()) command.addOption(option);
  return command
    .addHelpText(
      'after',
      `
Runs until Ctrl-C (exit 0); exits 1 when a connection fails or is lost (also a login the broker refuses), 2 for
usage errors (also a bad --rules file, an --upload file that cannot be read, or --interactive without a terminal).

Examples:
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-001-token
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-001-token --rules rules.json --json
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-002-token --interactive
  $ platform-emu device simulate --app-version smart-meter-v1 --fleet 3 --token 'meter-{nnn}-token'
  $ platform-emu device simulate --app-version smart-meter-v1 --fleet 3 --token 'meter-{nnn}-token' --workers 2
  $ platform-emu device simulate --app-version tracker-v1 --register --fleet 50 --telemetry ` +
        `'lat=52.0..52.6,lon=13.0..13.8' --interval 5000
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-003-token --metadata ` +
        `'{"firmware":"1.2.0"}'
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-002-token --upload photo.jpg
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-001-token --qos 1
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-001-token --username meter-001 ` +
        `--password meter-001-password
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-001-token --tls --cert client.crt ` +
        `--key client.key`,
    )
    .action(run);
}
