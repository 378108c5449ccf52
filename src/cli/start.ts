import { Command, InvalidArgumentError, Option } from 'commander';
import chalk from './colours.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunningEmulator } from '../index.js';
import { START_DEFAULTS } from '../client/defaults.js';
import type { StartOptions } from './start-options.js';
import { cliName } from './invocation.js';
import { runInForeground } from './foreground.js';
import { generatedSecretLines } from './lifecycle.js';
import { CliError, collect, dataOption, parsePort, parsePositiveInt, removeDataDir } from './shared.js';
import { isPersonsTerminal } from './terminal.js';

export type { StartOptions };

function parseCompat(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([a-z0-9-]+)=([A-Za-z0-9._-]+)$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected <service>=<revision>, for example cex=1.');
  return { ...previous, [match[1]]: match[2] };
}

/**
 * A start that names its REST or MQTT port but not its MQTTS port (tests and scripts on free ports) gets a free
 * MQTTS port, so that such emulators still run side by side; a start that names none uses 8883 as it uses 1883.
 */
export function freeMqttsPortBeside(command: Command, options: StartOptions): void {
  const named = (name: string) => ['cli', 'env'].includes(command.getOptionValueSource(name) ?? '');
  if (!named('mqttsPort') && (named('port') || named('mqttPort'))) options.mqttsPort = 0;
}

/** What `platform-emu token` needs to find this emulator: nothing for the default data directory. */
function tokenTarget(emulator: RunningEmulator): string {
  if (!emulator.dataDir) return ` --url ${emulator.url}`;
  return emulator.dataDir === resolve(START_DEFAULTS.dataDir) ? '' : ` --data-dir ${emulator.dataDir}`;
}

/** A busy port is the most common start failure: say which flag moves it. */
export function portInUse(err: unknown, options: StartOptions): CliError | undefined {
  const error = err as NodeJS.ErrnoException & { port?: number; address?: string };
  if (error?.code !== 'EADDRINUSE') return undefined;
  const flag =
    error.port === options.mqttPort && error.port !== options.port
      ? '--mqtt-port'
      : error.port === options.httpsPort && error.port !== options.port
        ? '--https-port'
        : '--port';
  return new CliError(
    `Port ${error.port} on ${error.address} is already in use: choose another with ${flag} (0 picks a free one).`,
  );
}

/**
 * With auth on, how to reach the control plane: the CLI finds the token in the lock; in memory it is only shown here.
 */
function adminHint(emulator: RunningEmulator, options: StartOptions): string {
  if (options.adminToken) return chalk.dim('the control plane (/_emu) takes the --admin-token you gave');
  if (emulator.dataDir)
    return chalk.dim(
      `the control plane's admin token is in ${emulator.dataDir}/emulator.lock (the CLI reads it from there)`,
    );
  return `PLATFORM_EMU_ADMIN_TOKEN=${emulator.adminToken}  ${chalk.dim('(the control plane /_emu needs it)')}`;
}

function banner(emulator: RunningEmulator, options: StartOptions, modules: BannerModules): string {
  const { url } = emulator;
  const ctx = modules.internalContext(emulator);
  const { listTenants } = modules;
  const width = Math.max(...ctx.services.map((s) => s.title.length));
  const lines = [
    `${chalk.bold.green('platform-emu')} ready at ${chalk.bold(url)}  ${chalk.dim(`(auth ${options.auth})`)}`,
    '',
    chalk.bold('Services'),
    ...ctx.services.map((s) => `  ${s.title.padEnd(width)}  ${chalk.cyan(`${url}/${s.prefix}/api/v1`)}`),
    '',
    `${chalk.bold('State')}     ${emulator.dataDir ?? 'in memory (nothing is written)'}`,
    `${chalk.bold('Tenants')}   ${
      listTenants(ctx)
        .map((t) => (t.id === ctx.defaultTenantId() ? `${t.id} (default)` : t.id))
        .join(', ') || 'none'
    }`,
    `${chalk.bold('Token')}     ${cliName()} token${tokenTarget(emulator)}   ` +
      `${chalk.dim('(or the OIDC token endpoint of each realm)')}`,
    `${chalk.bold('Health')}    ${url}/_emu/health`,
    `${chalk.bold('Dashboard')} ${chalk.cyan(`${url}/_emu/ui/`)}`,
    ...(options.auth === 'on' ? [`${chalk.bold('Admin')}     ${adminHint(emulator, options)}`] : []),
    `${chalk.bold('MQTT')}      ${chalk.cyan(emulator.mqttUrl)}   ${chalk.dim('(KP1 devices; also POST /kp1/... on the REST port)')}`,
    `${chalk.bold('MQTTS')}     ${chalk.cyan(emulator.mqttsUrl)}   ${chalk.dim(`(TLS, client certificates ${options.tlsClientAuth === 'required' ? 'required' : 'optional'}; root certificate: ${cliName()} tls ca, or ${url}/_emu/tls/ca.pem)`)}`,
    ...(emulator.httpsUrl
      ? [`${chalk.bold('HTTPS')}     ${chalk.cyan(emulator.httpsUrl)}   ${chalk.dim('(the REST port over TLS)')}`]
      : []),
    '',
    chalk.dim(`Try: curl ${url}/epr/api/v1/endpoints`),
    ...(emulator.generatedSecrets.length > 0
      ? [
          '',
          `${chalk.bold.yellow('Secrets')}   made for this import (the export had them <redacted>; shown only now):`,
          ...generatedSecretLines(emulator.generatedSecrets).map((line) => `  ${line}`),
        ]
      : []),
  ];
  return lines.join('\n');
}

interface BannerModules {
  internalContext: typeof import('../emulator.js').internalContext;
  listTenants: typeof import('../services/tenant-manager/tenants.js').listTenants;
}

/** Values commander cannot check alone: the `--compat` revisions each service offers. Exit 2 like any usage error. */
export async function checkStartOptions(options: StartOptions): Promise<void> {
  const [{ services }, { compatProblem }] = await Promise.all([
    import('../services/index.js'),
    import('../server/compat-choices.js'),
  ]);
  const problem = compatProblem(options.compat, services);
  if (problem) throw new CliError(problem, 2);
}

/** Starts the emulator the options describe, in this process (`start`, its detached child, and `exec`). */
export async function launch(options: StartOptions): Promise<RunningEmulator> {
  // A start that fails (a fixture file that does not validate, a port taken) leaves no new directory behind; a
  // detached child's directory holds the log its parent shows, and the parent made it.
  const existed = options.inMemory || options.detachedChild || existsSync(resolve(options.data));
  const { startEmulator } = await import('../emulator.js');
  try {
    return await startEmulator({
      port: options.port,
      host: options.host,
      dataDir: options.data,
      inMemory: options.inMemory,
      fixtures: options.fixtures,
      import: options.import,
      auth: options.auth,
      compat: options.compat,
      bodyLimit: options.bodyLimit,
      asyncRequestTimeout: options.asyncTimeout,
      mqttPort: options.mqttPort,
      mqttAuth: options.mqttAuth,
      compactBytes: options.compactBytes,
      uploadTokenTtl: options.uploadTokenTtl,
      uploadLimit: options.uploadLimit,
      journalSize: options.journalSize,
      allowHosts: options.allowHost,
      allowOrigins: options.allowOrigin,
      adminToken: options.adminToken,
      mqttsPort: options.mqttsPort,
      httpsPort: options.httpsPort,
      tlsCert: options.tlsCert,
      tlsKey: options.tlsKey,
      tlsClientAuth: options.tlsClientAuth,
      generateAppNames: options.generateAppNames,
      log: (m) => process.stderr.write(`${chalk.yellow('warning')} ${m}\n`),
    });
  } catch (err) {
    if (!existed) removeDataDir(options.data);
    throw portInUse(err, options) ?? err;
  }
}

/**
 * A spinner only for a person watching a real terminal: never in CI, in a pipe, on a 0x0 pseudo-terminal, with --quiet
 * or --json.
 */
async function spinnerFor(options: StartOptions): Promise<{ stop(): void }> {
  if (options.quiet || options.json || options.detachedChild || !isPersonsTerminal(process.stderr))
    return { stop: () => undefined };
  const { default: ora } = await import('ora');
  // discardStdin off: Ctrl-C stays a SIGINT, handled like any other time.
  return ora({ text: 'Loading state', stream: process.stderr, discardStdin: false }).start();
}

/** What a person reads once the emulator is ready: where everything is. */
export async function printBanner(emulator: RunningEmulator, options: StartOptions): Promise<void> {
  const [{ internalContext }, { listTenants }] = await Promise.all([
    import('../emulator.js'),
    import('../services/tenant-manager/tenants.js'),
  ]);
  process.stdout.write(`${banner(emulator, options, { internalContext, listTenants })}\n`);
}

async function run(options: StartOptions): Promise<void> {
  const made = !options.inMemory && !options.detachedChild && !existsSync(resolve(options.data));
  // A new data directory's RSA key is made on the thread pool while the emulator's modules load.
  if (!options.inMemory && !options.detach) (await import('../auth/keys.js')).prepareKey(options.data);
  await checkStartOptions(options);
  if (options.detach) return (await import('./detach.js')).startDetached(options);
  const spinner = await spinnerFor(options);
  await runInForeground(
    options,
    () =>
      launch(options)
        .catch((err: unknown) => {
          // The key may have made the directory before the start failed: it goes too.
          if (made) removeDataDir(options.data);
          throw err;
        })
        .then(logRequests(options))
        .finally(() => spinner.stop()),
    (emulator) => printBanner(emulator, options),
  );
}

/** `--log requests`: one line per REST request and KP1 message, from the journal, as they happen. */
function logRequests(options: StartOptions) {
  return async (emulator: RunningEmulator): Promise<RunningEmulator> => {
    if (options.log !== 'requests') return emulator;
    (await import('./request-log.js')).printRequests(emulator);
    return emulator;
  };
}

export function startCommand(): Command {
  return new Command('start')
    .description('Run the emulator: every service over REST, state kept in a data directory, fixtures seeded.')
    .addOption(
      new Option('-p, --port <port>', 'REST port (0 picks a free one)')
        .env('PLATFORM_EMU_PORT')
        .default(START_DEFAULTS.port)
        .argParser(parsePort),
    )
    .addOption(
      new Option('--host <host>', 'address to listen on').env('PLATFORM_EMU_HOST').default(START_DEFAULTS.host),
    )
    .addOption(dataOption())
    .addOption(new Option('--in-memory', 'keep all state in memory and write nothing').env('PLATFORM_EMU_IN_MEMORY'))
    .addOption(
      new Option(
        '--fixtures <file>',
        'fixture file (or a `fixtures export`) that seeds a new, empty state; "none" for an empty platform',
      )
        .env('PLATFORM_EMU_FIXTURES')
        .default(START_DEFAULTS.fixtures, 'the bundled fixtures/default.json'),
    )
    .addOption(
      new Option('--auth <mode>', 'require bearer tokens')
        .choices(['off', 'on'])
        .env('PLATFORM_EMU_AUTH')
        .default(START_DEFAULTS.auth),
    )
    .addOption(
      new Option(
        '--compat <service=revision>',
        'answer like another revision of a service where two differ (repeatable): cex=1, app-manager=1',
      )
        .env('PLATFORM_EMU_COMPAT')
        .argParser(parseCompat)
        .default({}),
    )
    .addOption(
      new Option('--body-limit <bytes>', 'largest request body accepted (413 beyond)')
        .env('PLATFORM_EMU_BODY_LIMIT')
        .default(START_DEFAULTS.bodyLimit)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--async-timeout <seconds>',
        "the services' asynchronous request timeout: the longest wait a command may ask for",
      )
        .env('PLATFORM_EMU_ASYNC_TIMEOUT')
        .default(START_DEFAULTS.asyncRequestTimeout)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option('--mqtt-port <port>', 'MQTT port of the device gateway (0 picks a free one)')
        .env('PLATFORM_EMU_MQTT_PORT')
        .default(START_DEFAULTS.mqttPort)
        .argParser(parsePort),
    )
    .addOption(
      new Option(
        '--mqtt-auth <mode>',
        'MQTT CONNECT: "anonymous" admits clients without credentials (those with a username are checked), ' +
          '"basic" requires basic credentials',
      )
        .choices(['anonymous', 'basic'])
        .env('PLATFORM_EMU_MQTT_AUTH')
        .default(START_DEFAULTS.mqttAuth),
    )
    .addOption(
      new Option(
        '--compact-bytes <bytes>',
        'size of the mutation log past which state.json is rewritten and the log emptied',
      )
        .env('PLATFORM_EMU_COMPACT_BYTES')
        .default(START_DEFAULTS.compactBytes)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--upload-token-ttl <seconds>',
        'lifetime of the upload token a device gets from bcx (X-Auth-Token of binary-data uploads)',
      )
        .env('PLATFORM_EMU_UPLOAD_TOKEN_TTL')
        .default(START_DEFAULTS.uploadTokenTtl)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option('--upload-limit <bytes>', 'largest binary-data upload (413 beyond)')
        .env('PLATFORM_EMU_UPLOAD_LIMIT')
        .default(START_DEFAULTS.uploadLimit)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--import <file>',
        'replace the state at start with this file (from `fixtures export`, or a fixture file), whatever the ' +
          'data directory holds',
      ).env('PLATFORM_EMU_IMPORT'),
    )
    .addOption(
      new Option(
        '--export-on-exit <file>',
        'at a clean stop (SIGINT, SIGTERM, `platform-emu stop`), write the whole state to this file',
      ).env('PLATFORM_EMU_EXPORT_ON_EXIT'),
    )
    .addOption(
      new Option(
        '--generate-app-names',
        'application manager: POST /applications takes no name and generates one (name auto-generation on)',
      ).env('PLATFORM_EMU_GENERATE_APP_NAMES'),
    )
    .addOption(
      new Option('--journal-size <entries>', 'requests and KP1 messages the request journal keeps (GET /_emu/requests)')
        .env('PLATFORM_EMU_JOURNAL_SIZE')
        .default(START_DEFAULTS.journalSize)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--allow-host <name>',
        'also answer requests whose Host is this name (repeatable; loopback names always work)',
      )
        .env('PLATFORM_EMU_ALLOW_HOST')
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option(
        '--allow-origin <origin>',
        'let web pages of this origin call and change the emulator (CORS; repeatable; the variable takes a ' +
          'comma-separated list)',
      )
        .env('PLATFORM_EMU_ALLOW_ORIGIN')
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option(
        '--admin-token <secret>',
        'with --auth on, the admin token of the control plane (default: one the emulator signs)',
      ).env('PLATFORM_EMU_ADMIN_TOKEN'),
    )
    .addOption(
      new Option(
        '--mqtts-port <port>',
        'MQTT over TLS port (0 picks a free one; default 8883, or a free one when --port or --mqtt-port is named)',
      )
        .env('PLATFORM_EMU_MQTTS_PORT')
        .default(START_DEFAULTS.mqttsPort)
        .argParser(parsePort),
    )
    .addOption(
      new Option(
        '--https-port <port>',
        'also serve the REST port (and KP1 over HTTP) over HTTPS on this port (0 picks a free one)',
      )
        .env('PLATFORM_EMU_HTTPS_PORT')
        .argParser(parsePort),
    )
    .addOption(
      new Option(
        '--tls-cert <file>',
        'server certificate (PEM) of MQTTS and HTTPS instead of one the local certificate authority signs',
      ).env('PLATFORM_EMU_TLS_CERT'),
    )
    .addOption(new Option('--tls-key <file>', 'private key (PEM) of --tls-cert').env('PLATFORM_EMU_TLS_KEY'))
    .addOption(
      new Option(
        '--tls-client-auth <mode>',
        'MQTTS: "off" is one-way TLS, "required" refuses clients without a certificate the credentials ' +
          'manager holds (a tenant may override)',
      )
        .choices(['off', 'required'])
        .env('PLATFORM_EMU_TLS_CLIENT_AUTH')
        .default(START_DEFAULTS.tlsClientAuth),
    )
    .addOption(
      new Option('--log <what>', 'print one line per REST request and KP1 message as it happens')
        .choices(['requests'])
        .env('PLATFORM_EMU_LOG'),
    )
    .addOption(new Option('-q, --quiet', 'print only the URL').env('PLATFORM_EMU_QUIET'))
    .addOption(
      new Option(
        '--json',
        'print one JSON line when ready: url, mqttUrl, mqttsUrl, port, mqttPort, mqttsPort, pid, dataDir (and ' +
          'adminToken when auth is on)',
      ).env('PLATFORM_EMU_JSON'),
    )
    .addOption(
      new Option(
        '--detach',
        'run in the background: return once ready, log to <data dir>/emulator.log; `platform-emu stop` ends it',
      ),
    )
    .addOption(new Option('--detached-child').hideHelp())
    .addHelpText(
      'after',
      `
Examples:
  $ platform-emu start                          # port 8080, state in ./.platform-emu, default fixtures
  $ platform-emu start --port 0 --in-memory     # a throwaway emulator on a free port
  $ platform-emu start --detach --port 0 --mqtt-port 0 --json   # in the background (CI); platform-emu stop ends it
  $ platform-emu start --in-memory --import state.json --export-on-exit state.json
  $ platform-emu start --auth on --data-dir /tmp/emu --fixtures my-fixtures.json`,
    )
    .action(function (this: Command, options: StartOptions) {
      // commander turns a boolean flag on for any value of its variable; `PLATFORM_EMU_IN_MEMORY=0` means off.
      if (
        this.getOptionValueSource('inMemory') === 'env' &&
        /^(0|false|no|off)?$/i.test(process.env.PLATFORM_EMU_IN_MEMORY ?? '')
      ) {
        options.inMemory = false;
      }
      freeMqttsPortBeside(this, options);
      return run(options);
    });
}
