import { Command } from 'commander';
import chalk from './colours.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { prepareWireThread } from '../gateway/wire.js';
import type { RunningEmulator } from '../index.js';
import type { StartOptions } from './start-options.js';
import { runInForeground } from './foreground.js';
import { capHeapGrowth } from './heap-growth.js';
import { printBanner } from './start-banner.js';
import { withStartFlags } from './start-flags.js';
import { CliError, removeDataDir } from './shared.js';
import { isPersonsTerminal } from './terminal.js';

export type { StartOptions };

/**
 * A start that names its REST or MQTT port but not its MQTTS port (tests and scripts on free ports) gets a free
 * MQTTS port, so that such emulators still run side by side; a start that names none uses 8883 as it uses 1883.
 */
export function freeMqttsPortBeside(command: Command, options: StartOptions): void {
  const named = (name: string) => ['cli', 'env'].includes(command.getOptionValueSource(name) ?? '');
  if (!named('mqttsPort') && (named('port') || named('mqttPort'))) options.mqttsPort = 0;
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
  capHeapGrowth();
  prepareWireThread();
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

async function run(options: StartOptions): Promise<void> {
  // The MQTT wire thread starts while the emulator's modules load (a detaching parent runs no emulator).
  if (!options.detach) prepareWireThread();
  const made = !options.inMemory && !options.detachedChild && !existsSync(resolve(options.data));
  // With auth on, a new data directory's RSA key is made on the thread pool while the emulator's modules load: the
  // start waits for it (the lock file carries the admin token). With auth off it is made once the emulator is ready.
  if (!options.inMemory && !options.detach && options.auth === 'on')
    (await import('../auth/keys.js')).prepareKey(options.data);
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
  return withStartFlags(
    new Command('start').description(
      'Run the emulator: every service over REST, state kept in a data directory, fixtures seeded.',
    ),
  )
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
