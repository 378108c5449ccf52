import { Command } from 'commander';
import { control, controlTargetOptions, type ControlTarget } from './control-client.js';

interface ClockAnswer {
  now: string;
  mode: string;
}

type ClockOptions = ControlTarget & { json?: boolean };

function withTarget(command: Command, ...examples: string[]): Command {
  for (const option of controlTargetOptions()) command.addOption(option);
  return command
    .option('--json', 'print { now, mode } as JSON')
    .addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ platform-emu clock ${e}`).join('\n')}`);
}

async function show(options: ClockOptions, method: 'GET' | 'PUT', body?: unknown): Promise<void> {
  const clock = await control<ClockAnswer>(options, method, '/_emu/clock', body);
  process.stdout.write(options.json ? `${JSON.stringify(clock)}\n` : `${clock.now}  (${clock.mode})\n`);
}

/** Edit distance of two short words (subcommand names), for the "did you mean" hint. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** Commander's wording for an unknown command, with the closest subcommand as the hint. */
function unknownSubcommand(word: string, clock: Command): string {
  const names = clock.commands.map((c) => c.name());
  const closest = names.map((name) => ({ name, d: distance(word.slice(0, 40), name) })).sort((x, y) => x.d - y.d)[0];
  const hint =
    closest && closest.d <= Math.max(2, Math.floor(closest.name.length / 3)) ? `\n(Did you mean ${closest.name}?)` : '';
  return `error: unknown command '${word}'${hint}`;
}

export function clockCommand(): Command {
  const command = new Command('clock')
    .description(
      "Show or move a running emulator's virtual clock: command expiry, retention, token expiry and every " +
        'date follow it.',
    )
    .addHelpText(
      'after',
      `
Durations: ISO 8601 (PT1H, P30D, P1DT12H) or short (90s, 1h, 721h, 1h30m, 500ms, 2d).

Examples:
  $ platform-emu clock                                 # now, and the mode: real, frozen or offset
  $ platform-emu clock set 2030-01-01T00:00:00Z        # jump there and stand still
  $ platform-emu clock set 2030-01-01T00:00:00Z --running
  $ platform-emu clock advance 721h                    # past the default command retention of 720 hours
  $ platform-emu clock real                            # back to the machine's time`,
    );
  command.addCommand(
    withTarget(
      // Words after `clock` that name no subcommand reach the default `show`: a typo, answered like any other.
      new Command('show').description('the time now and the mode (the default)').allowExcessArguments(true),
      'show',
      'show --json --url http://127.0.0.1:41234',
    ).action((options: ClockOptions, show_: Command) => {
      if (show_.args.length > 0) show_.parent!.error(unknownSubcommand(show_.args[0], show_.parent!));
      return show(options, 'GET');
    }),
    {
      isDefault: true,
    },
  );
  command.addCommand(
    withTarget(
      new Command('set')
        .argument('<iso>', 'an ISO 8601 datetime')
        .description('jump to a time (frozen there, unless --running)'),
      'set 2030-01-01T00:00:00Z',
      'set 2030-01-01T00:00:00Z --running',
    )
      .option('--running', 'keep the clock running from there (an offset) instead of freezing it')
      .action((iso: string, options: ClockOptions & { running?: boolean }) =>
        show(options, 'PUT', { now: iso, frozen: !options.running }),
      ),
  );
  command.addCommand(
    withTarget(
      new Command('advance')
        .argument('<duration>', 'PT1H, 90s, 721h, ...')
        .description('move forward; what became due (expiry, retention) runs at once'),
      'advance PT1H',
      'advance 721h',
    ).action((duration: string, options: ClockOptions) => show(options, 'PUT', { advance: duration })),
  );
  command.addCommand(
    withTarget(new Command('freeze').description('stop the clock where it stands'), 'freeze').action(
      (options: ClockOptions) => show(options, 'PUT', { frozen: true }),
    ),
  );
  command.addCommand(
    withTarget(new Command('real').description("back to the machine's time"), 'real').action((options: ClockOptions) =>
      show(options, 'PUT', { real: true }),
    ),
  );
  return command;
}
