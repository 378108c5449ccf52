import { Command } from 'commander';
import { control, controlTargetOptions, type ControlTarget } from './control-client.js';

interface SnapshotInfo {
  name: string;
  savedAt: string;
  bytes?: number;
}

const path = (name: string) => `/_emu/snapshots/${encodeURIComponent(name)}`;

function withTarget(command: Command, ...examples: string[]): Command {
  for (const option of controlTargetOptions()) command.addOption(option);
  return command.addHelpText(
    'after',
    `\nExamples:\n${examples.map((e) => `  $ platform-emu snapshot ${e}`).join('\n')}`,
  );
}

export function snapshotCommand(): Command {
  const command = new Command('snapshot')
    .description(
      "Save, restore, list and delete named copies of a running emulator's whole state (kept in its data directory).",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ platform-emu snapshot save seeded\n  $ platform-emu snapshot restore seeded\n  $ ' +
        'platform-emu snapshot list',
    );
  command.addCommand(
    withTarget(
      new Command('save')
        .argument('<name>')
        .description('save the whole state under a name (replaces a snapshot of that name)'),
      'save seeded',
      'save before-upgrade --data /tmp/emu',
    ).action(async (name: string, options: ControlTarget) => {
      await control(options, 'PUT', path(name));
      process.stderr.write(`Saved snapshot ${name}.\n`);
    }),
  );
  command.addCommand(
    withTarget(
      new Command('restore').argument('<name>').description('replace the whole state with a snapshot, atomically'),
      'restore seeded',
      'restore seeded --url http://127.0.0.1:41234',
    ).action(async (name: string, options: ControlTarget) => {
      await control(options, 'POST', `${path(name)}/restore`);
      process.stderr.write(`Restored snapshot ${name}.\n`);
    }),
  );
  command.addCommand(
    withTarget(
      new Command('list').description('the saved snapshots').option('--json', 'as JSON'),
      'list',
      'list --json',
    ).action(async (options: ControlTarget & { json?: boolean }) => {
      const snapshots = await control<SnapshotInfo[]>(options, 'GET', '/_emu/snapshots');
      if (options.json) process.stdout.write(`${JSON.stringify(snapshots, null, 2)}\n`);
      else
        for (const s of snapshots)
          process.stdout.write(`${s.name}\t${s.savedAt}${s.bytes !== undefined ? `\t${s.bytes} bytes` : ''}\n`);
    }),
  );
  command.addCommand(
    withTarget(new Command('delete').argument('<name>').description('delete a snapshot'), 'delete seeded').action(
      async (name: string, options: ControlTarget) => {
        await control(options, 'DELETE', path(name));
        process.stderr.write(`Deleted snapshot ${name}.\n`);
      },
    ),
  );
  return command;
}
