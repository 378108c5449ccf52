import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';

const NAME = 'platform-emu';
/** PATH lists a few dozen directories at most; a longer one is not searched past this. */
const MAX_PATH_ENTRIES = 256;

const realpathOrSelf = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** The script this process runs (bin/platform-emu.js, or a node_modules/.bin link to it). */
const script = () => process.argv[1] ?? '';

/** Whether `platform-emu` on PATH is this very CLI (a global install, or a shell already under `exec`). */
export function onPath(env: NodeJS.ProcessEnv = process.env): boolean {
  const self = realpathOrSelf(script());
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean).slice(0, MAX_PATH_ENTRIES);
  for (const dir of dirs) {
    const candidate = join(dir, NAME);
    if (existsSync(candidate)) return realpathOrSelf(candidate) === self;
  }
  return false;
}

let cached: string | undefined;

/**
 * How the user runs the CLI where they are: the bare name when `platform-emu` on PATH is this CLI (installed
 * globally, or in a command `exec` runs), else `npx platform-emu` (installed in a project, run through npx or an npm
 * script, or a clone).
 */
export function cliName(): string {
  // Under npx or an npm script, node_modules/.bin is on PATH for this run only, not in the user's shell.
  const viaNpm = ['exec', 'run-script'].includes(process.env.npm_command ?? '');
  return (cached ??= onPath() && !viaNpm ? NAME : `npx ${NAME}`);
}

/** `$ platform-emu ...` in help examples as the user can type it. */
export function localiseExamples(text: string): string {
  const name = cliName();
  return name === NAME ? text : text.replaceAll(`$ ${NAME} `, `$ ${name} `).replaceAll(`$(${NAME} `, `$(${name} `);
}

/**
 * A directory whose `platform-emu` is this CLI, to put first on the PATH of a command `exec` runs: the directory of
 * the link that started it (node_modules/.bin), else a temporary one with a
 * link to it (a clone's bin/platform-emu.js).
 */
export function binDirForChildren(): { dir: string; remove(): void } {
  const started = script();
  if (basename(started) === NAME) return { dir: dirname(started), remove: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-bin-'));
  // A link, not a script: `cliName()` in the command's own runs sees that the bare name is this CLI.
  symlinkSync(realpathOrSelf(started), join(dir, NAME));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
