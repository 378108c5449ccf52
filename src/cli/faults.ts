import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { faultLine } from './fault-line.js';
import { control, controlTargetOptions, type ControlTarget } from './control-client.js';
import { parsePositiveInt } from './shared.js';

interface Fault {
  id: string;
  kind: 'http' | 'device';
  [field: string]: unknown;
}

function withTarget(command: Command, ...examples: string[]): Command {
  for (const option of controlTargetOptions()) command.addOption(option);
  return command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ platform-emu faults ${e}`).join('\n')}`);
}

function parseStatus(value: string): number {
  const status = Number(value);
  if (!/^\d{3}$/.test(value) || status < 400 || status > 599)
    throw new InvalidArgumentError('a status from 400 to 599.');
  return status;
}

function parseMs(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('milliseconds, a whole number.');
  return Number(value);
}

function parseProbability(value: string): number {
  const p = Number(value);
  if (value.trim() === '' || !(p >= 0 && p <= 1)) throw new InvalidArgumentError('a number from 0 to 1.');
  return p;
}

const describe = (fault: Fault) => faultLine(fault);

async function add(options: ControlTarget, fault: Record<string, unknown>): Promise<void> {
  const added = await control<Fault>(options, 'POST', '/_emu/faults', fault);
  process.stdout.write(`${added.id}\n`);
}

interface HttpFaultOptions extends ControlTarget {
  path: string;
  method?: string;
  status?: number;
  message?: string;
  latency?: number;
  drop?: boolean;
  probability?: number;
  count?: number;
}

export function faultsCommand(): Command {
  const command = new Command('faults')
    .description(
      'Inject failures into a running emulator: HTTP answers (status, latency, dropped connections) and ' +
        'device conditions.',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ platform-emu faults add http --path /epr/api/v1/endpoints --status 503 --count 2
  $ platform-emu faults add http --path '/cex/api/v1/endpoints/*/commands/**' --latency 2000 --probability 0.5
  $ platform-emu faults add device meter-001 offline
  $ platform-emu faults list
  $ platform-emu faults clear`,
    );
  const addCommand = new Command('add')
    .description('add a fault; prints its id')
    .addHelpText(
      'after',
      '\nExamples:\n  $ platform-emu faults add http --path /epr --status 503\n  $ platform-emu faults add ' +
        'device meter-001 offline',
    );
  addCommand.addCommand(
    withTarget(
      new Command('http')
        .description(
          'fail or delay REST requests whose path starts with --path (or matches it as a glob: * one level, ** any)',
        )
        .requiredOption('--path <path>', 'path prefix or glob, starting with /')
        .option('--method <method>', 'only this method')
        .addOption(
          new Option('--status <status>', 'answer this status (400-599) with { "message" }').argParser(parseStatus),
        )
        .option('--message <text>', 'the message of that answer')
        .addOption(new Option('--latency <ms>', 'wait this long first').argParser(parseMs))
        .option('--drop', 'close the connection without an answer')
        .addOption(
          new Option('--probability <p>', 'chance (0..1) that a matching request is hit').argParser(parseProbability),
        )
        .addOption(new Option('--count <n>', 'hit this many requests, then go away').argParser(parsePositiveInt)),
      'add http --path /epr/api/v1/endpoints --status 503 --count 2',
      "add http --path '/cex/**' --latency 1500 --probability 0.3",
      'add http --path /tenant-manager --method POST --drop',
    ).action((options: HttpFaultOptions) =>
      add(options, {
        kind: 'http',
        path: options.path,
        ...(options.method ? { method: options.method } : {}),
        ...(options.status !== undefined ? { status: options.status } : {}),
        ...(options.message !== undefined ? { message: options.message } : {}),
        ...(options.latency !== undefined ? { latencyMs: options.latency } : {}),
        ...(options.drop ? { drop: true } : {}),
        ...(options.probability !== undefined ? { probability: options.probability } : {}),
        ...(options.count !== undefined ? { count: options.count } : {}),
      }),
    ),
  );
  addCommand.addCommand(
    withTarget(
      new Command('device')
        .description(
          'offline: messages and pushes are lost (commands stay pending); slow: delayed; disconnect: close ' +
            'its MQTT connection now',
        )
        .argument('<endpointId>')
        .addArgument(new Argument('<mode>', 'offline, slow or disconnect').choices(['offline', 'slow', 'disconnect']))
        .addOption(new Option('--latency <ms>', 'the delay of slow (default 1000)').argParser(parseMs)),
      'add device meter-001 offline',
      'add device meter-002 slow --latency 3000',
      'add device meter-003 disconnect',
    ).action((endpointId: string, mode: string, options: ControlTarget & { latency?: number }) =>
      add(options, {
        kind: 'device',
        endpointId,
        mode,
        ...(options.latency !== undefined ? { latencyMs: options.latency } : {}),
      }),
    ),
  );
  command.addCommand(addCommand);
  command.addCommand(
    withTarget(
      new Command('list').description('the faults in force').option('--json', 'as JSON'),
      'list',
      'list --json',
    ).action(async (options: ControlTarget & { json?: boolean }) => {
      const faults = await control<Fault[]>(options, 'GET', '/_emu/faults');
      if (options.json) process.stdout.write(`${JSON.stringify(faults, null, 2)}\n`);
      else for (const fault of faults) process.stdout.write(`${describe(fault)}\n`);
    }),
  );
  command.addCommand(
    withTarget(
      new Command('clear').argument('[id]', 'only this fault').description('remove one fault, or all'),
      'clear',
      'clear fault-3',
    ).action(async (id: string | undefined, options: ControlTarget) => {
      await control(options, 'DELETE', id ? `/_emu/faults/${encodeURIComponent(id)}` : '/_emu/faults');
      process.stderr.write(id ? `Removed fault ${id}.\n` : 'Removed every fault.\n');
    }),
  );
  return command;
}
