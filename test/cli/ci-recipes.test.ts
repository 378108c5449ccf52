import { execa } from 'execa';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../store/emulator-process.js';

/**
 * Every recipe of docs/ci.md, run as written: the shell blocks with bash, and the commands of the YAML blocks
 * (GitHub's `run:`, GitLab's `script:` and `after_script:` items) one after another, each in its own bash as
 * the CI runs them. `npx` and `platform-emu` on PATH are the built CLI; `npm ci` is the CI's business.
 */
const doc = readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
const blocks = [...doc.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map(([, lang, body]) => ({ lang, body }));

/** A shell block that starts `#!/bin/sh` and names its path on the next line is a file of the user's repository. */
const files = blocks
  .filter((b) => b.lang === 'sh' && b.body.startsWith('#!'))
  .map((b) => ({ path: /^# ([\w./-]+):/m.exec(b.body.split('\n')[1])![1], body: b.body }));
const scripts = blocks.filter((b) => b.lang === 'sh' && !b.body.startsWith('#!')).map((b) => b.body);

function commandsOf(yaml: string): string[] {
  const commands: string[] = [];
  let inScript = false;
  for (const line of yaml.split('\n')) {
    const run = /^\s*(?:- )?run: (.+)$/.exec(line);
    if (run) commands.push(run[1]);
    if (/^\s*(?:before_|after_)?script:\s*$/.test(line)) inScript = true;
    else if (inScript && /^\s+- (.+)$/.test(line)) commands.push(/^\s+- (.+)$/.exec(line)![1]);
    else if (!/^\s+- /.test(line)) inScript = false;
  }
  return commands.filter((command) => command !== 'npm ci');
}
// The workflow that uses the action (action.yml) is run step by step by test/cli/github-action.test.ts.
const pipelines = blocks
  .filter((b) => b.lang === 'yaml' && !b.body.includes('uses: ./node_modules/platform-emu'))
  .map((b) => ({ name: /^# (\S+)/.exec(b.body)![1], commands: commandsOf(b.body) }));

const root = mkdtempSync(join(tmpdir(), 'platform-emu-ci-'));
const shims = join(root, 'bin');
let repos = 0;

beforeAll(() => {
  assertBuilt();
  mkdirSync(shims);
  writeFileSync(join(shims, 'platform-emu'), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
  writeFileSync(join(shims, 'npx'), '#!/bin/sh\nexec "$@"\n');
  for (const name of ['platform-emu', 'npx']) chmodSync(join(shims, name), 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh checkout: the user's scripts, nothing else. */
function repository(): string {
  const dir = join(root, `repo-${++repos}`);
  for (const file of files) {
    mkdirSync(dirname(join(dir, file.path)), { recursive: true });
    writeFileSync(join(dir, file.path), file.body, { mode: 0o755 });
  }
  return dir;
}

const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_'))),
  PATH: `${shims}:${process.env.PATH}`,
  NO_COLOR: '1',
};

const bash = (script: string, cwd: string) =>
  execa('bash', ['-ec', script], { cwd, env, extendEnv: false, reject: false, timeout: 30_000 });

describe('docs/ci.md', () => {
  it('has the recipes this test runs: the firmware stand-in, a shell recipe, GitHub Actions and GitLab CI', () => {
    expect(files.map((f) => f.path)).toEqual(['scripts/firmware-test.sh']);
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    expect(pipelines.map((p) => p.name)).toEqual([
      '.github/workflows/firmware.yml',
      '.github/workflows/firmware-steps.yml',
      '.gitlab-ci.yml',
      '.github/workflows/firmware-handoff.yml',
    ]);
    for (const pipeline of pipelines)
      expect(pipeline.commands.some((c) => c.includes('platform-emu exec') || c.includes('start --detach'))).toBe(true);
  });

  it.each(scripts.map((script, i) => [i, script]))(
    'shell recipe %i runs and stops what it starts',
    async (_, script) => {
      const cwd = repository();
      const result = await bash(script as string, cwd);
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('firmware tests passed against http://127.0.0.1:');
      expect(existsSync(join(cwd, '.emu', 'emulator.lock'))).toBe(false);
    },
    120_000,
  );

  it.each(pipelines.map((p) => [p.name, p.commands]))(
    '%s: every command succeeds, and no emulator is left running',
    async (_, commands) => {
      const cwd = repository();
      for (const command of commands as string[]) {
        const result = await bash(command, cwd);
        expect(result.exitCode, `${command}\n${result.stdout}\n${result.stderr}`).toBe(0);
      }
      // The hand-off recipe's second job is a second emulator process, on a data directory of its own.
      for (const dir of ['.emu', '.emu-next']) expect(existsSync(join(cwd, dir, 'emulator.lock'))).toBe(false);
    },
    120_000, // several CLI processes one after another, on a busy machine
  );
});
