import { execa } from 'execa';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import { BIN, cleanEnv, simulateArgs } from '../helpers/device-cli.js';
import { loadedPackages } from '../helpers/own-modules.js';

const IMPORTS_LOG_HOOK = fileURLToPath(new URL('../helpers/imports-log.mjs', import.meta.url));

/** The packages a CLI run imports: from node_modules, or held in a file of the CLI's bundle it imported. */
async function packagesImported(...args: string[]): Promise<Set<string>> {
  const log = join(await mkdtemp(join(tmpdir(), 'imports-')), 'imports.log');
  await writeFile(log, '');
  await execa('node', ['--import', IMPORTS_LOG_HOOK, BIN, ...args], {
    reject: false,
    env: { ...cleanEnv(), IMPORTS_LOG: log },
    extendEnv: false,
  });
  return new Set(loadedPackages((await readFile(log, 'utf8')).split('\n')));
}

describe('platform-emu device', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];

  it('--help, device --help and device register load neither the MQTT client nor the prompts', async () => {
    for (const args of [
      ['--help'],
      ['device', 'simulate', '--help'],
      ['device', 'register', '--app-version', 'tracker-v1', ...url],
    ]) {
      const imported = await packagesImported(...args);
      expect(imported.has('commander'), args.join(' ')).toBe(true);
      expect(
        [...imported].filter((name) => ['mqtt', 'inquirer', 'ajv'].includes(name)),
        args.join(' '),
      ).toEqual([]);
    }
    // The check itself sees them when a simulation runs.
    const simulating = await packagesImported(
      ...simulateArgs('smart-meter-v1', 'meter-001-token', '--mqtt-url', 'mqtt://127.0.0.1:9'),
    );
    expect(simulating.has('mqtt')).toBe(true);
  });
});
