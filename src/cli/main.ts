import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { callCommand } from './call.js';
import { clockCommand } from './clock.js';
import { deviceCommand } from './device/index.js';
import { execCommand } from './exec.js';
import { fixturesCommand } from './fixtures.js';
import { mailCommand } from './mail.js';
import { faultsCommand } from './faults.js';
import { logsCommand } from './logs.js';
import { resetCommand } from './reset.js';
import { CliError } from './shared.js';
import { snapshotCommand } from './snapshot.js';
import { startCommand } from './start.js';
import { statusCommand } from './status.js';
import { stopCommand } from './stop.js';
import { tokenCommand } from './token.js';
import { waitCommand } from './wait.js';

/** Usage errors (unknown flags, bad values) exit 2; failures of the work itself exit 1. */
const USAGE_EXIT = 2;

export function buildProgram(): Command {
  const program = new Command('platform-emu')
    .description('A local, stateful emulator of the device platform: REST services, KP1 devices, fixtures and test tokens.')
    .version(VERSION, '-v, --version')
    .addHelpText(
      'after',
      `
Examples:
  $ platform-emu start                   # every service on http://127.0.0.1:8080
  $ platform-emu exec -- npm test        # CI: an emulator for the length of one command
  $ platform-emu token                   # a bearer token for the default tenant
  $ platform-emu fixtures export > state.json`,
    )
    // `exec` hands everything after its command to that command, flags included.
    .enablePositionalOptions();
  for (const command of [startCommand(), tokenCommand(), fixturesCommand(), deviceCommand(), callCommand(), mailCommand()]) program.addCommand(command);
  for (const command of [execCommand(), statusCommand(), stopCommand(), waitCommand()]) program.addCommand(command);
  for (const command of [resetCommand(), snapshotCommand(), logsCommand(), clockCommand(), faultsCommand()]) program.addCommand(command);
  const exitOverride = (err: CommanderError) => {
    if (err.exitCode === 0) process.exit(0);
    process.exit(USAGE_EXIT);
  };
  // A usage error is one line on stderr, hint included.
  const oneLine = { outputError: (text: string, write: (s: string) => void) => write(`${text.trimEnd().replace(/\s*\n\s*/g, ' ')} (see --help)\n`) };
  const apply = (command: Command) => {
    command.exitOverride(exitOverride).configureOutput(oneLine);
    command.commands.forEach(apply);
  };
  apply(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`platform-emu: ${message}\n`);
    process.exit(err instanceof CliError ? err.exitCode : 1);
  }
}
