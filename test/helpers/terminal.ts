import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));

/** Whether `inTerminal` can run here (util-linux `script`). */
export const hasScript = process.platform === 'linux' && existsSync('/usr/bin/script');

/** The CLI in a pseudo-terminal (util-linux `script`): its screen as text, and a way to wait for some of it. */
export function inTerminal(args: string[], env: NodeJS.ProcessEnv) {
  const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;
  // `exec`: script runs the command through $SHELL, or /bin/sh where SHELL is unset (as in CI). dash does not exec a
  // lone command itself, and a shell left in between gets the terminal's Ctrl-C too and dies of it (exit 130).
  const command = `exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  const term = execa('script', ['-qfec', command, '/dev/null'], { reject: false, env, extendEnv: false });
  let screen = '';
  let waiters: Array<{ text: string; resolve: () => void }> = [];
  term.stdout!.on('data', (chunk: Buffer) => {
    // Colours and cursor moves out, so that prompts read as text.
    screen += chunk.toString().replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
    waiters = waiters.filter((w) => !(screen.includes(w.text) && (w.resolve(), true)));
  });
  const exited = term.then((result) => result);
  return {
    screen: () => screen,
    type: (keys: string) => term.stdin!.write(keys),
    shown(text: string): Promise<void> {
      if (screen.includes(text)) return Promise.resolve();
      return Promise.race([
        new Promise<void>((resolve) => waiters.push({ text, resolve })),
        exited.then(() => {
          throw new Error(`exited before showing "${text}"; screen: ${screen}`);
        }),
      ]);
    },
    exited,
    /** Ends the terminal (and so the command in it) when a test fails with it still running. */
    kill: () => term.kill('SIGKILL'),
  };
}
