import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real CLI of `platform-emu device`, as the test/cli/device-*.test.ts files run it. */
export const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
if (!existsSync(new URL('../../dist/bundle/main.js', import.meta.url)))
  throw new Error('Run `npm run build` before the CLI tests.');

/** The control-plane admin token of an `--auth on` emulator, given to the CLI as a user would. */
export const ADMIN_TOKEN = 'device-test-admin-token';

/** The environment of every run: nothing that could point the CLI elsewhere, the admin token, no colours. */
export const cleanEnv = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_'))),
  PLATFORM_EMU_ADMIN_TOKEN: ADMIN_TOKEN,
  NO_COLOR: '1',
});

/** `device simulate` of one device: its application version and token, then the case's own flags. */
export function simulateArgs(appVersion: string, token: string, ...flags: string[]): string[] {
  return ['device', 'simulate', '--app-version', appVersion, '--token', token, ...flags];
}

/** Runs one CLI command to its end (never throws on a non-zero exit). */
export function cli(...args: string[]) {
  return execa('node', [BIN, ...args], { reject: false, env: cleanEnv(), extendEnv: false });
}

export type Event = { event: string; [field: string]: any };

/** A `device simulate --json` running in the background. */
export interface Simulation {
  proc: ResultPromise;
  /** Its events so far. */
  events: Event[];
  stderr(): string;
  /** The first event (already seen or still to come) that matches; fails if the process ends first. */
  next(name: string, match?: (e: Event) => boolean): Promise<Event>;
  /** Ctrl-C: answers how it ended. */
  interrupt(): Promise<Awaited<ResultPromise>>;
}

/** A CLI command printing JSON lines in the background (`--json`): the lines as they come, and a way to wait for one. */
export function jsonLines<T>(proc: ResultPromise, command: string) {
  const printed: T[] = [];
  let waiters: Array<{ match: (item: T) => boolean; resolve: (item: T) => void }> = [];
  let buffered = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      const item = JSON.parse(line) as T;
      printed.push(item);
      waiters = waiters.filter((w) => !(w.match(item) && (w.resolve(item), true)));
    }
  });
  const exited = proc.then((result) => result);
  return {
    printed,
    exited,
    /** The first line (already printed or still to come) that matches; fails, naming `what`, if the command ends first. */
    next(match: (item: T) => boolean, what: string): Promise<T> {
      const seen = printed.find(match);
      if (seen) return Promise.resolve(seen);
      return Promise.race([
        new Promise<T>((resolve) => waiters.push({ match, resolve })),
        exited.then((result) => {
          throw new Error(
            `${command} exited (${result.exitCode}) before ${what}; printed: ${JSON.stringify(printed)}; ` +
              `stderr: ${String(result.stderr)}`,
          );
        }),
      ]);
    },
  };
}

/** `device simulate --json` in the background: its events as they come, and a way to wait for one. */
export function simulator(...args: string[]): Simulation {
  const proc: ResultPromise = execa('node', [BIN, 'device', 'simulate', '--json', ...args], {
    reject: false,
    env: cleanEnv(),
    extendEnv: false,
  });
  const lines = jsonLines<Event>(proc, 'simulate');
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    proc,
    events: lines.printed,
    stderr: () => stderr,
    next: (name: string, match: (e: Event) => boolean = () => true) =>
      lines.next((e) => e.event === name && match(e), `a "${name}" event`),
    async interrupt() {
      proc.kill('SIGINT');
      return lines.exited;
    },
  };
}

/** Writes a rules file (an object as JSON, a string as is) to a new temporary directory; answers its path. */
export async function rulesFile(rules: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'device-test-'));
  const file = join(dir, 'rules.json');
  await writeFile(file, typeof rules === 'string' ? rules : JSON.stringify(rules));
  return file;
}
