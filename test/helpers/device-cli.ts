import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real CLI of `platform-emu device`, as the test/cli/device-*.test.ts files run it. */
export const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url)))
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

/** `device simulate --json` in the background: its events as they come, and a way to wait for one. */
export function simulator(...args: string[]): Simulation {
  const proc: ResultPromise = execa('node', [BIN, 'device', 'simulate', '--json', ...args], {
    reject: false,
    env: cleanEnv(),
    extendEnv: false,
  });
  const events: Event[] = [];
  let stderr = '';
  let waiters: Array<{ match: (e: Event) => boolean; resolve: (e: Event) => void }> = [];
  let buffered = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      const event = JSON.parse(line) as Event;
      events.push(event);
      waiters = waiters.filter((w) => !(w.match(event) && (w.resolve(event), true)));
    }
  });
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = proc.then((result) => result);
  return {
    proc,
    events,
    stderr: () => stderr,
    next(name: string, match: (e: Event) => boolean = () => true): Promise<Event> {
      const test = (e: Event) => e.event === name && match(e);
      const seen = events.find(test);
      if (seen) return Promise.resolve(seen);
      return Promise.race([
        new Promise<Event>((resolve) => waiters.push({ match: test, resolve })),
        exited.then((result) => {
          throw new Error(
            `simulate exited (${result.exitCode}) before a "${name}" event; events: ` +
              `${JSON.stringify(events)}; stderr: ${stderr}`,
          );
        }),
      ]);
    },
    async interrupt() {
      proc.kill('SIGINT');
      return exited;
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
