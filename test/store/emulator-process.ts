import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built CLI, as a user runs it (`npm test` builds it first; `npm run build` before running one file). */
export const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/bundle/main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(BUILT)) throw new Error('dist/ is missing: run `npm run build` before these tests.');
}

/** Runs one CLI command to its end (never throws on a non-zero exit). */
export function cli(args: string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}) {
  return execa('node', [BIN, ...args], {
    reject: false,
    env: { NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
    input: options.input,
    timeout: 20_000,
  });
}

export interface EmulatorProcess {
  url: string;
  child: ResultPromise;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Everything it wrote to stdout so far. */
  stdout(): string;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<{ exitCode?: number; signal?: string }>;
}

/**
 * `platform-emu start` in its own process on free ports; resolves with the URL once it prints it
 * (the first stdout line with `--quiet`, the banner's "ready at" otherwise).
 */
export async function startProcess(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<EmulatorProcess> {
  const child = execa('node', [BIN, 'start', '--mqtt-port', '0', ...args], {
    reject: false,
    env: { NO_COLOR: '1', ...env },
    cwd,
    buffer: false,
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /(http:\/\/[^\s]+)/.exec(out);
      if (match && out.includes('\n')) resolve(match[1]);
    });
    child.then(
      (result) =>
        reject(
          new Error(`the emulator exited (${result.exitCode ?? result.signal}) before it was ready: ${err.trim()}`),
        ),
      reject,
    );
  });
  return {
    url,
    child,
    stderr: () => err,
    stdout: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      child.kill(signal);
      const result = await child;
      return { exitCode: result.exitCode, signal: result.signal };
    },
  };
}
