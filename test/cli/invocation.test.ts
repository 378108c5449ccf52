import { execa } from 'execa';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../store/emulator-process.js';

assertBuilt();

const dir = mkdtempSync(join(tmpdir(), 'platform-emu-path-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI with PATH limited to the system's directories (no platform-emu there) and no npm variables. */
const env = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('PLATFORM_EMU_') && !name.startsWith('npm_')),
  ),
  PATH: `${join(process.execPath, '..')}:/usr/bin:/bin`,
  NO_COLOR: '1',
};
const run = (args: string[], path = env.PATH) =>
  execa('node', [BIN, ...args], { env: { ...env, PATH: path }, extendEnv: false, reject: false, timeout: 30_000 });

describe('the name the CLI prints for itself', () => {
  it('is `npx platform-emu` in help examples when the bare name is not on PATH', async () => {
    const help = await run(['token', '--help']);
    expect(help.stdout).toContain('$ npx platform-emu token --platform');
    expect(help.stdout).toContain('$(npx platform-emu token --admin)');
  });

  it('is the bare name when platform-emu on PATH is this CLI (a global install)', async () => {
    symlinkSync(BIN, join(dir, 'platform-emu'));
    const help = await run(['token', '--help'], `${dir}:${env.PATH}`);
    expect(help.stdout).toContain('$ platform-emu token --platform');
  });

  it('exec puts its own bin directory first on the PATH of the command it runs', async () => {
    const result = await run(['exec', '--quiet', '--', 'sh', '-c', 'platform-emu status --url "$PLATFORM_EMU_URL"']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('running (pid');
    expect(result.exitCode).toBe(0);
  });
});
