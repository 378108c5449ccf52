import { Command } from 'commander';
import { control, controlTargetOptions, type ControlTarget } from './control-client.js';

export function resetCommand(): Command {
  const command = new Command('reset')
    .description(
      'Put a running emulator back to its fixtures (or empty), at once; the clock goes back to real time and ' +
        'faults are cleared.',
    )
    .option('--empty', 'an empty platform instead of the fixtures')
    .addHelpText(
      'after',
      '\nExamples:\n  $ platform-emu reset\n  $ platform-emu reset --empty --url http://127.0.0.1:41234',
    );
  for (const option of controlTargetOptions()) command.addOption(option);
  return command.action(async (options: ControlTarget & { empty?: boolean }) => {
    await control(options, 'POST', '/_emu/reset', { empty: options.empty === true });
    process.stderr.write(options.empty ? 'The emulator is empty now.\n' : 'The emulator is back to its fixtures.\n');
  });
}
