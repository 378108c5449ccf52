import { execa } from 'execa';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../store/emulator-process.js';

/**
 * The command examples of docs/cli.md, run as printed against one emulator started in the background on free
 * ports (data directory `.emu`, named by PLATFORM_EMU_DATA as a user's shell would): each `sh` block from a reset
 * emulator, its commands in order, each in its own bash with pipefail. A block that shows a session (`$ ` lines)
 * runs its `$ ` lines; the rest of it is output. What cannot end by itself or needs what a laptop has and a test
 * has not is left out below, with the reason.
 */
const project = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(join(project, 'docs/cli.md'), 'utf8');

const leftOut: [RegExp, string][] = [
  [/^platform-emu exec \[start flags\]/, 'a synopsis, not a command'],
  [/--follow/, 'follows until Ctrl-C'],
  [/device simulate/, 'a simulated device runs until Ctrl-C (test/cli/device-*.test.ts run them)'],
  [/commands\/reboot.*--expect 200/, 'needs a connected device to answer the command (a simulated one runs forever)'],
  [/^curl -s "\$\(platform-emu mail/, 'needs a captured mail, which a user signup in the dashboard sends'],
];

function commandsOf(block: string): string[] {
  const lines = block.replace(/\\\n\s*/g, '').split('\n');
  const session = lines.some((line) => line.startsWith('$ '));
  return lines
    .filter((line) => (session ? line.startsWith('$ ') : line.trim() && !line.startsWith('#')))
    .map((line) => (session ? line.slice(2) : line));
}
const blocks = [...doc.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map(([, body]) => commandsOf(body));

const root = mkdtempSync(join(tmpdir(), 'platform-emu-docs-'));
const shims = join(root, 'bin');
const cwd = join(root, 'project');
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_'))),
  PATH: `${shims}:${process.env.PATH}`,
  PLATFORM_EMU_DATA: '.emu',
  NO_COLOR: '1',
};
const { PLATFORM_EMU_DATA: _named, ...withoutDataDir } = env;
// `exec` starts an emulator of its own, in memory unless a data directory is named: PLATFORM_EMU_DATA would name
// the one the other examples use.
const bash = (command: string) =>
  execa('bash', ['-o', 'pipefail', '-ec', command], {
    cwd,
    env: command.startsWith('platform-emu exec') ? withoutDataDir : env,
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });

beforeAll(async () => {
  assertBuilt();
  mkdirSync(shims);
  writeFileSync(join(shims, 'platform-emu'), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(shims, 'platform-emu'), 0o755);
  // The user's project the examples name: an npm test script, a firmware test script, a fixture file, a photo.
  mkdirSync(join(cwd, 'test'), { recursive: true });
  writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: 'firmware', scripts: { test: 'node -e 0' } }));
  writeFileSync(join(cwd, 'run-firmware-tests.sh'), '#!/bin/sh\ncurl -sf "$PLATFORM_EMU_URL/_emu/health"\n', {
    mode: 0o755,
  });
  copyFileSync(join(project, 'fixtures/default.json'), join(cwd, 'test/fixtures.json'));
  writeFileSync(join(cwd, 'photo.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
  const started = await bash('platform-emu start --detach --port 0 --mqtt-port 0 --data-dir .emu');
  expect(started.exitCode, started.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await bash('platform-emu stop --data-dir .emu');
  rmSync(root, { recursive: true, force: true });
});

describe('docs/cli.md', () => {
  it('has command examples to run', () => {
    expect(blocks.flat().length).toBeGreaterThan(20);
  });

  it.each(blocks.map((commands, i) => [i, commands]))(
    'block %i runs as printed',
    async (_, commands) => {
      const reset = await bash('platform-emu reset');
      expect(reset.exitCode, reset.stderr).toBe(0);
      for (const command of commands as string[]) {
        if (leftOut.some(([pattern]) => pattern.test(command))) continue;
        const result = await bash(command);
        expect(result.exitCode, `${command}\n${result.stdout}\n${result.stderr}`).toBe(0);
      }
    },
    240_000,
  );
});
