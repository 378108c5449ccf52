import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import { loadedPackages, ownModules } from '../helpers/own-modules.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
if (!existsSync(new URL('../../dist/bundle/main.js', import.meta.url)))
  throw new Error('Run `npm run build` before the CLI tests.');
const IMPORTS_LOG_HOOK = fileURLToPath(new URL('../helpers/imports-log.mjs', import.meta.url));

/**
 * `token` and `call` are what scripts run in loops: each may load commander, its own module and the HTTP client,
 * nothing of the emulator, of the other commands, or of the packages they do not use.
 */
const OWN_MODULES = [
  'cli/main.js',
  'cli/shared.js',
  'cli/colours.js',
  'cli/terminal.js',
  // How the CLI names itself in what it prints (node builtins only).
  'cli/invocation.js',
  'store/lock.js',
  'store/errors.js',
  'client/http-client.js',
  'client/defaults.js',
  'client/emulator-lock.js',
  'config.js',
  // Where the package's files are (the fixtures' path in config.js).
  'package-dir.js',
];

interface Imported {
  packages: string[];
  /** Our modules, relative to dist/. */
  modules: string[];
  stdout: string;
}

/** What a CLI run imports, with output to a pipe (no terminal, so no colours) unless `env` says otherwise. */
async function imports(args: string[], env: Record<string, string> = {}): Promise<Imported> {
  const log = join(await mkdtemp(join(tmpdir(), 'imports-')), 'imports.log');
  await writeFile(log, '');
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('PLATFORM_EMU_') && !['FORCE_COLOR', 'NO_COLOR'].includes(name),
    ),
  );
  const result = await execa('node', ['--import', IMPORTS_LOG_HOOK, BIN, ...args], {
    reject: false,
    env: { ...clean, IMPORTS_LOG: log, ...env },
    extendEnv: false,
  });
  expect(result.exitCode, result.stderr).toBe(0);
  const urls = [...new Set((await readFile(log, 'utf8')).split('\n').filter(Boolean))];
  return { packages: loadedPackages(urls), modules: ownModules(urls).sort(), stdout: result.stdout };
}

describe('what token and call load', async () => {
  const emulator = await startTestEmulator();

  it('token --url loads commander, its own module and the HTTP client only', async () => {
    const { packages, modules, stdout } = await imports(['token', '--url', emulator.url]);
    expect(stdout).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+\s*$/);
    expect(packages).toEqual(['commander']);
    expect(modules).toContain('cli/token.js');
    expect(modules.filter((module) => module !== 'cli/token.js' && !OWN_MODULES.includes(module))).toEqual([]);
  });

  it(
    'call GET loads commander, its own module and the HTTP client only: no chalk into a pipe, ' +
      'no route table for a placed path',
    async () => {
      const { packages, modules, stdout } = await imports([
        'call',
        'GET',
        '/epr/api/v1/endpoints/meter-001',
        '--url',
        emulator.url,
      ]);
      expect(JSON.parse(stdout)).toMatchObject({ endpointId: 'meter-001' });
      expect(packages).toEqual(['commander']);
      expect(modules).toContain('cli/call.js');
      // device-answer.js is call's own: how a command's empty answer is read from the command record.
      const callModules = ['cli/call.js', 'cli/device-answer.js'];
      expect(modules.filter((module) => !callModules.includes(module) && !OWN_MODULES.includes(module))).toEqual([]);
    },
  );

  it('the check sees what a run does load: chalk where colours are wanted, every command for --help', async () => {
    const coloured = await imports(['call', 'GET', '/epr/api/v1/endpoints/meter-001', '--url', emulator.url], {
      FORCE_COLOR: '1',
    });
    expect(coloured.packages).toContain('chalk');
    const help = await imports(['--help']);
    expect(help.modules).toEqual(
      expect.arrayContaining(['cli/start.js', 'cli/token.js', 'cli/call.js', 'cli/device/index.js', 'version.js']),
    );
  });
});
