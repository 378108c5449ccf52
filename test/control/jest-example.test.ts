import { execa } from 'execa';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = `${ROOT}docs/examples/jest/`;

it(
  'the Jest examples of docs/api.md are in it verbatim, and Jest runs them (a per-file emulator, and one from a ' +
    'globalSetup)',
  async () => {
    const doc = readFileSync(`${ROOT}docs/api.md`, 'utf8');
    const files = readdirSync(EXAMPLES).sort();
    expect(files).toEqual([
      'global-setup.mjs',
      'global-teardown.mjs',
      'jest.config.mjs',
      'per-file.test.mjs',
      'shared.test.mjs',
    ]);
    for (const file of files) expect(doc, file).toContain(readFileSync(`${EXAMPLES}${file}`, 'utf8').trim());
    expect(doc).toContain(
      'NODE_OPTIONS=--experimental-vm-modules npx jest --config docs/examples/jest/jest.config.mjs',
    );

    // The examples import 'platform-emu': the package itself, built (npm test builds first).
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && !name.startsWith('PLATFORM_EMU_')),
    );
    const jest = fileURLToPath(new URL('../../node_modules/jest/bin/jest.js', import.meta.url));
    const run = await execa(
      process.execPath,
      ['--experimental-vm-modules', jest, '--config', 'docs/examples/jest/jest.config.mjs'],
      {
        cwd: ROOT,
        env: { ...env, NO_COLOR: '1' },
        extendEnv: false,
        reject: false,
      },
    );
    // Jest reports on stderr.
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).toMatch(/PASS per-file docs\/examples\/jest\/per-file\.test\.mjs/);
    expect(run.stderr).toMatch(/PASS shared docs\/examples\/jest\/shared\.test\.mjs/);
    expect(run.stderr).toMatch(/Tests:\s+4 passed, 4 total/);
  },
  120_000,
);
