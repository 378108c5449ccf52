import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
const BUNDLE = new URL('../../dist/bundle/', import.meta.url).href;
const SRC = new URL('../../src/', import.meta.url).href;
if (!existsSync(new URL('cli.js', BUNDLE))) throw new Error('Run `npm run build` before the CLI tests.');
const IMPORTS_LOG_HOOK = fileURLToPath(new URL('../helpers/imports-log.mjs', import.meta.url));

/**
 * `token` and `call` are what scripts run in loops: each may load commander, its own module and the HTTP client,
 * nothing of the emulator, of the other commands, or of the packages they do not use.
 */
const OWN_MODULES = ['cli/main.ts', 'cli/shared.ts', 'cli/colours.ts', 'cli/terminal.ts', 'store/lock.ts', 'store/errors.ts', 'client/http-client.ts', 'client/defaults.ts'];

interface Imported {
  packages: string[];
  /** Our modules, relative to src/: the sources of the bundle's chunks the run loaded. */
  modules: string[];
  stdout: string;
}

/**
 * The sources (relative to src/) of a chunk of the CLI's bundle, from its source map. A chunk without a map is one
 * that only re-exports another chunk (whose URL the run resolves, and so logs, too).
 */
function sourcesOf(chunkUrl: string): string[] {
  const map = new URL(`${chunkUrl}.map`);
  if (!existsSync(map)) {
    const code = readFileSync(new URL(chunkUrl), 'utf8');
    const reexport = /^(import (\{[^}]*\} from )?"\.\/[\w-]+\.js"|export \{[^}]*\}( from "\.\/[\w-]+\.js")?);$/;
    expect(code.split('\n').filter((line) => line.trim() && !reexport.test(line)), `${chunkUrl} has code but no source map`).toEqual([]);
    return [];
  }
  const { sources } = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] };
  return sources.map((source) => new URL(source, chunkUrl).href).map((url) => {
    expect(url.startsWith(SRC), `${chunkUrl} bundles ${url}: only src/ is bundled`).toBe(true);
    return url.slice(SRC.length);
  });
}

/** What a CLI run imports, with output to a pipe (no terminal, so no colours) unless `env` says otherwise. */
async function imports(args: string[], env: Record<string, string> = {}): Promise<Imported> {
  const log = join(await mkdtemp(join(tmpdir(), 'imports-')), 'imports.log');
  await writeFile(log, '');
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_') && !['FORCE_COLOR', 'NO_COLOR'].includes(name)));
  const result = await execa('node', ['--import', IMPORTS_LOG_HOOK, BIN, ...args], { reject: false, env: { ...clean, IMPORTS_LOG: log, ...env }, extendEnv: false });
  expect(result.exitCode, result.stderr).toBe(0);
  const urls = [...new Set((await readFile(log, 'utf8')).split('\n').filter(Boolean))];
  const packages = new Set(urls.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter((name): name is string => Boolean(name)));
  const modules = new Set(urls.filter((url) => url.startsWith(BUNDLE)).flatMap(sourcesOf));
  return { packages: [...packages].sort(), modules: [...modules].sort(), stdout: result.stdout };
}

describe('what token and call load', async () => {
  const emulator = await startTestEmulator();

  it('token --url loads commander, its own module and the HTTP client only', async () => {
    const { packages, modules, stdout } = await imports(['token', '--url', emulator.url]);
    expect(stdout).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+\s*$/);
    expect(packages).toEqual(['commander']);
    expect(modules).toContain('cli/token.ts');
    expect(modules.filter((module) => module !== 'cli/token.ts' && !OWN_MODULES.includes(module))).toEqual([]);
  });

  it('call GET loads commander, its own module and the HTTP client only: no chalk into a pipe, no route table for a placed path', async () => {
    const { packages, modules, stdout } = await imports(['call', 'GET', '/epr/api/v1/endpoints/meter-001', '--url', emulator.url]);
    expect(JSON.parse(stdout)).toMatchObject({ endpointId: 'meter-001' });
    expect(packages).toEqual(['commander']);
    expect(modules).toContain('cli/call.ts');
    expect(modules.filter((module) => module !== 'cli/call.ts' && !OWN_MODULES.includes(module))).toEqual([]);
  });

  it('the check sees what a run does load: chalk where colours are wanted, every command for --help', async () => {
    const coloured = await imports(['call', 'GET', '/epr/api/v1/endpoints/meter-001', '--url', emulator.url], { FORCE_COLOR: '1' });
    expect(coloured.packages).toContain('chalk');
    const help = await imports(['--help']);
    expect(help.modules).toEqual(expect.arrayContaining(['cli/start.ts', 'cli/token.ts', 'cli/call.ts', 'cli/device/index.ts', 'version.ts']));
  });
});
