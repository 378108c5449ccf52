import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
if (!existsSync(join(ROOT, 'dist/index.js'))) throw new Error('Run `npm run build` before the docs examples.');

/** The ```js blocks of a doc that import the package, each with the output its `// ...` comments promise. */
async function examples(doc: string): Promise<Array<{ code: string; expected: string[] }>> {
  const text = await readFile(join(ROOT, doc), 'utf8');
  return [...text.matchAll(/```js\n([\s\S]*?)```/g)]
    .map((match) => match[1])
    .filter((code) => code.includes("from 'platform-emu'"))
    .map((code) => ({ code, expected: [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]) }));
}

/** Runs an example as a user's script would: in its own folder, with the package installed under node_modules. */
async function run(code: string) {
  const dir = await mkdtemp(join(tmpdir(), 'docs-example-'));
  await mkdir(join(dir, 'node_modules'));
  await symlink(ROOT, join(dir, 'node_modules', 'platform-emu'), 'dir');
  await writeFile(join(dir, 'example.mjs'), code);
  return execa('node', ['example.mjs'], { cwd: dir, reject: false });
}

describe('docs/devices.md', async () => {
  const found = await examples('docs/devices.md');

  it('has the in-process examples', () => {
    expect(found.map((e) => e.code.match(/import \{ (.*) \}/)?.[1])).toEqual([
      'simulateDevice, startEmulator',
      'Kp1Device, startEmulator',
    ]);
  });

  it.each(found.map((example, i) => [i + 1, example] as const))(
    'example %i runs and prints what its comments say',
    async (_n, { code, expected }) => {
      const result = await run(code);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(result.stdout.split('\n')).toEqual(expected);
    },
  );
});
