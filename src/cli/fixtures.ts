import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { GeneratedSecret } from '../index.js';
import { generatedSecretLines } from './lifecycle.js';
import { CliError, removeDataDir, dataOption, emulatorJson, runningUrl, urlOption } from './shared.js';

interface Target {
  data: string;
  url?: string;
  includeSecrets?: boolean;
}

const warn = (m: string) => process.stderr.write(`warning: ${m}\n`);

async function exportState(file: string | undefined, options: Target): Promise<void> {
  const url = runningUrl(options);
  let document: unknown;
  if (url) {
    document = await emulatorJson(
      url,
      'GET',
      `/_emu/state${options.includeSecrets ? '?includeSecrets=true' : ''}`,
      undefined,
      options,
    );
  } else {
    const stopped = await (await import('../index.js')).openDataDir(options.data, { readOnly: true, log: warn });
    try {
      document = stopped.exportState({ includeSecrets: options.includeSecrets });
    } finally {
      await stopped.close();
    }
  }
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (file) {
    // Owner-only like state.json: with --include-secrets it holds client secrets in clear.
    await writeFile(file, text, { mode: 0o600 });
    process.stderr.write(`Exported the state to ${file}.\n`);
  } else {
    process.stdout.write(text);
  }
}

async function importState(file: string, options: Target): Promise<void> {
  let input: unknown;
  try {
    input = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  const url = runningUrl(options);
  let generated: GeneratedSecret[] = [];
  if (url) {
    const answer = await emulatorJson<{ generatedSecrets?: GeneratedSecret[] } | undefined>(
      url,
      'PUT',
      '/_emu/state',
      input,
      options,
    );
    generated = answer?.generatedSecrets ?? [];
  } else {
    // An import into a directory that did not exist, and failed, leaves no directory behind.
    const existed = existsSync(resolve(options.data));
    try {
      const stopped = await (await import('../index.js')).openDataDir(options.data, { log: warn });
      try {
        generated = await stopped.importState(input, file);
      } finally {
        await stopped.close();
      }
    } catch (err) {
      if (!existed) removeDataDir(options.data);
      throw new CliError((err as Error).message);
    }
  }
  process.stderr.write(`Imported ${file}; the previous state was replaced.\n`);
  if (generated.length > 0) {
    process.stderr.write('These secrets were <redacted> in the export and defined nowhere else; they were made now:\n');
    process.stdout.write(`${generatedSecretLines(generated).join('\n')}\n`);
  }
}

export function fixturesCommand(): Command {
  const command = new Command('fixtures')
    .description('Export or import the whole state as one readable JSON document.')
    .addHelpText(
      'after',
      '\nExamples:\n  $ platform-emu fixtures export > state.json\n  $ platform-emu fixtures import state.json',
    );
  command
    .command('export [file]')
    .description('write the whole state as JSON (to stdout when no file is given)')
    .option(
      '--include-secrets',
      'write client secrets and passwords in clear (by default they read "<redacted>", and importing keeps ' +
        'the stored ones)',
    )
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      '\nExamples:\n  $ platform-emu fixtures export > state.json\n  $ platform-emu fixtures export ' +
        'snapshot.json --data-dir /tmp/emu',
    )
    .action(exportState);
  command
    .command('import <file>')
    .description(
      'replace the whole state with a file from `fixtures export`, or with a fixture file; a file that does ' +
        'not validate changes nothing',
    )
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      '\nExamples:\n  $ platform-emu fixtures import state.json\n  $ platform-emu fixtures import ' +
        'fixtures/default.json --url http://127.0.0.1:8080',
    )
    .action(importState);
  return command;
}
