import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { expectOneLineError } from '../helpers/cli-processes.js';
import { assertBuilt, cli } from '../store/emulator-process.js';

beforeAll(assertBuilt);

/** What `--help` of this command prints: its program's own help output, caught on its way to stdout. */
function helpOf(command: Command): string {
  let text = '';
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => ((text += String(chunk)), true)) as typeof write;
  try {
    command.outputHelp();
  } finally {
    process.stdout.write = write;
  }
  return text;
}

describe('usage errors', () => {
  it.each([
    [['start', '--bogus'], {}, /unknown option '--bogus'/],
    [['--bogus'], {}, /unknown option '--bogus'/],
    [['bogus'], {}, /unknown command 'bogus'/],
    [['start', '--port', '70000'], {}, /--port.*'70000' is invalid\. a port is a whole number from 0 to 65535/],
    [['start', '--port', 'http'], {}, /--port.*'http' is invalid/],
    [['start'], { PLATFORM_EMU_PORT: 'abc' }, /'abc' from env 'PLATFORM_EMU_PORT' is invalid/],
    [['start', '--auth', 'maybe'], {}, /Allowed choices are off, on/],
    [['start', '--compat', 'ecr'], {}, /expected <service>=<revision>/],
    [
      ['start', '--compat', 'foo=9'],
      {},
      /--compat foo=9: foo has no revisions to choose from; the choices are .*cex=1\|2/,
    ],
    [['start', '--compat', 'cex=9'], {}, /--compat cex=9: the revisions of cex are 1, 2 \(default 2\)/],
    [['exec', '--compat', 'app-manager=3', '--', 'true'], {}, /the revisions of app-manager are 1, 2/],
    [
      ['token', '--scope', 'bogus:scope'],
      {},
      /Unknown scope bogus:scope; the scopes are: .*emulator:admin.*endpoint:read/,
    ],
    [['status', '--bogus'], {}, /unknown option '--bogus'/],
    [['token', '--ttl', '0'], {}, /--ttl.*at least 1/],
    [['fixtures', 'import'], {}, /missing required argument 'file'/],
  ])('%j prints one line on stderr and exits 2', async (args, env, pattern) => {
    expectOneLineError(await cli(args as string[], { env: env as Record<string, string> }), 2, pattern);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const result = await cli([flag]);
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout).trim()).toBe(version);
    }
  });

  it('--help of every command, and of every subcommand, shows an example', async () => {
    // About forty help texts: each is rendered by the CLI's own program in this process (one CLI process each would
    // cost seconds of CPU on a busy machine); two real runs show the CLI prints exactly that text.
    const program = await buildProgram();
    const commandsOf = (help: string) =>
      [...(help.split(/^Commands:$/m)[1] ?? '').matchAll(/^ {2}([a-z][a-z-]*)/gm)]
        .map((m) => m[1]!)
        .filter((name) => name !== 'help');
    const helps = new Map<string, string>();
    const walk = (command: Command, path: string[]) => {
      const text = helpOf(command);
      helps.set(path.join(' '), text);
      for (const name of commandsOf(text)) {
        const sub = command.commands.find((c) => c.name() === name);
        expect(sub, `${[...path, name].join(' ')} is listed but not found`).toBeDefined();
        walk(sub!, [...path, name]);
      }
    };
    walk(program, []);
    for (const path of [[], ['faults', 'add']]) {
      const result = await cli([...path, '--help']);
      expect(result.exitCode, `${path.join(' ')} --help: ${result.stderr}`).toBe(0);
      // execa takes off the last line's newline.
      expect(`${result.stdout}\n`, `${path.join(' ')} --help`).toBe(helps.get(path.join(' ')));
    }
    expect([...helps.keys()]).toEqual(
      expect.arrayContaining(['start', 'token', 'fixtures', 'fixtures export', 'fixtures import', 'faults add']),
    );
    const withoutExample = [...helps].filter(([, text]) => !/Examples?:\n\s+\$ .*platform-emu /.test(text));
    expect(withoutExample.map(([path]) => path)).toEqual([]);
  });

  it('start --help documents the environment variable of every flag', async () => {
    const help = String((await cli(['start', '--help'])).stdout);
    const flat = help.replace(/\s+/g, ' ');
    // --detach alone has none: a variable would also detach the background process it starts.
    const flags = [...help.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)]
      .map((m) => m[1])
      .filter((f) => f !== '--help' && f !== '--detach');
    expect(flags.length).toBeGreaterThan(8);
    for (const variable of [
      'PLATFORM_EMU_PORT',
      'PLATFORM_EMU_HOST',
      'PLATFORM_EMU_DATA',
      'PLATFORM_EMU_IN_MEMORY',
      'PLATFORM_EMU_FIXTURES',
      'PLATFORM_EMU_AUTH',
      'PLATFORM_EMU_COMPAT',
      'PLATFORM_EMU_QUIET',
    ]) {
      expect(flat).toContain(`env: ${variable}`);
    }
    expect(flat.match(/env: PLATFORM_EMU_/g)).toHaveLength(flags.length);
  });
});
