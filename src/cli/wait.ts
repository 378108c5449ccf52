import { Command, Option } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_EMULATOR_URL } from '../client/defaults.js';
import { CliError, dataOption, lockOf, parsePositiveInt, urlOption } from './shared.js';
import { healthOf } from './status.js';

interface WaitOptions {
  url?: string;
  data: string;
  timeout: number;
}

const POLL_MS = 100;

/** Where to look this time: `--url`, else the URL in the data directory's lock (it may appear while we wait). */
const targetOf = (options: WaitOptions) =>
  options.url?.replace(/\/$/, '') ?? lockOf(options)?.url ?? DEFAULT_EMULATOR_URL;

async function run(options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeout * 1000;
  for (;;) {
    const url = targetOf(options);
    if (await healthOf(url)) {
      process.stdout.write(`${url}\n`);
      return;
    }
    if (Date.now() > deadline) {
      const where = options.url ? `at ${url}` : `holding ${options.data} or at ${url}`;
      throw new CliError(`No emulator was ready ${where} within ${options.timeout} s.`);
    }
    await sleep(POLL_MS);
  }
}

export function waitCommand(): Command {
  return new Command('wait')
    .description('Wait until an emulator is ready (GET /_emu/health answers 200), then print its URL.')
    .addOption(
      new Option('--timeout <seconds>', 'give up (exit 1) after this long').default(30).argParser(parsePositiveInt),
    )
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      `
The emulator is the one --url names, else the one holding the lock of --data-dir (also one that takes it while
this waits), else ${DEFAULT_EMULATOR_URL}.

Examples:
  $ platform-emu wait --timeout 60
  $ URL=$(platform-emu wait --url http://127.0.0.1:8080)`,
    )
    .action(run);
}
