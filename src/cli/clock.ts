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

export function clockCommand(): Command {
  const command = new Command('clock')
    .description(
      "Show or move a running emulator's virtual clock: command expiry, retention, token expiry and every date follow it.",
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
      new Command('show').description('the time now and the mode (the default)'),
      'show',
      'show --json --url http://127.0.0.1:41234',
    ).action((options: ClockOptions) => show(options, 'GET')),
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
