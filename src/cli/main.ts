import { Command, type CommanderError } from 'commander';
import { localiseExamples } from './invocation.js';
import { CliError } from './shared.js';

/** Usage errors (unknown flags, bad values) exit 2; failures of the work itself exit 1. */
const USAGE_EXIT = 2;

/**
 * Every command's module, in the order `--help` lists them. A run that names a command loads that one module only
 * (`token` and `call` are run in loops by scripts: each module more is startup time), anything else (`--help`,
 * `--version`, `help <command>`, a typo) loads them all and sees the whole program.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./start.js')).startCommand(),
  token: async () => (await import('./token.js')).tokenCommand(),
  fixtures: async () => (await import('./fixtures.js')).fixturesCommand(),
  device: async () => (await import('./device/index.js')).deviceCommand(),
  call: async () => (await import('./call.js')).callCommand(),
  mail: async () => (await import('./mail.js')).mailCommand(),
  exec: async () => (await import('./exec.js')).execCommand(),
  status: async () => (await import('./status.js')).statusCommand(),
  stop: async () => (await import('./stop.js')).stopCommand(),
  wait: async () => (await import('./wait.js')).waitCommand(),
  reset: async () => (await import('./reset.js')).resetCommand(),
  snapshot: async () => (await import('./snapshot.js')).snapshotCommand(),
  logs: async () => (await import('./logs.js')).logsCommand(),
  clock: async () => (await import('./clock.js')).clockCommand(),
  faults: async () => (await import('./faults.js')).faultsCommand(),
  tls: async () => (await import('./tls.js')).tlsCommand(),
};

/**
 * The program with the commands that `argv` may need: the one it names (program options such as `--version` come
 * before a command name, so a run that starts with a command name needs no other), else all of them.
 */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const named = argv[2];
  const single = named !== undefined && Object.hasOwn(COMMANDS, named);
  const commands = await Promise.all((single ? [COMMANDS[named]!] : Object.values(COMMANDS)).map((load) => load()));
  const program = new Command('platform-emu').description(
    'A local, stateful emulator of the device platform: REST services, KP1 devices, fixtures and test tokens.',
  );
  // The version is read from package.json only when the run can ask for it.
  if (!single) program.version((await import('../version.js')).VERSION, '-v, --version');
  program
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
  for (const command of commands) program.addCommand(command);
  const exitOverride = (err: CommanderError) => {
    if (err.exitCode === 0) process.exit(0);
    process.exit(USAGE_EXIT);
  };
  // A usage error is one line on stderr, hint included.
  const oneLine = {
    // Help examples say `$ platform-emu ...`: as `npx platform-emu ...` where the bare name is not this CLI.
    writeOut: (text: string) => process.stdout.write(localiseExamples(text)),
    outputError: (text: string, write: (s: string) => void) =>
      write(`${text.trimEnd().replace(/\s*\n\s*/g, ' ')} (see --help)\n`),
  };
  const apply = (command: Command) => {
    command.exitOverride(exitOverride).configureOutput(oneLine);
    command.commands.forEach(apply);
  };
  apply(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`platform-emu: ${message}\n`);
    process.exit(err instanceof CliError ? err.exitCode : 1);
  }
}
