import { Command } from 'commander';
import { registerCommand } from './register.js';
import { simulateCommand } from './simulate.js';

export function deviceCommand(): Command {
  return new Command('device')
    .description('Register endpoints and simulate devices that speak KP1 to the emulator.')
    .addCommand(registerCommand())
    .addCommand(simulateCommand())
    .addHelpText(
      'after',
      `
Examples:
  $ platform-emu device register --app-version smart-meter-v1 --json
  $ platform-emu device simulate --app-version smart-meter-v1 --token meter-001-token`,
    );
}
